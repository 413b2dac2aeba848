/** Pieces of about this many characters are handed to the response stream. */
const CHUNK_CHARS = 64 * 1024;
/**
 * Containers nested deeper than this are serialized whole (one document's prediction, one ItemMetric...). At 4 a
 * create's answer (evaluation → iterations → iteration → predictions → one prediction) streams each iteration's
 * predictions one by one: at 3 each was one 7 MB string and one 7 MB chunk, fresh memory whose page faults were ~40%
 * of the serialization's (10,600 vs 5,900 for a 35 MB answer, ~5% of its CPU).
 */
const STREAM_DEPTH = 4;

/**
 * The JSON text of `value`, piece by piece: containers down to {@link STREAM_DEPTH} levels are written one member
 * at a time, deeper values with `JSON.stringify`. So a response of 10,000 predictions is never one giant string:
 * memory holds one member's text at a time. Same output as `JSON.stringify(value)`.
 */
export function* jsonPieces(value: unknown, depth = 0): Generator<string> {
  if (isLeaf(value, depth)) {
    yield JSON.stringify(value) ?? 'null';
    return;
  }
  // A member that is a leaf is written here with its separator, as one piece: no generator per prediction (a
  // build's answer has 50,000 of them, and each piece went up through every level's `yield*`).
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const sep = i > 0 ? ',' : '';
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') yield `${sep}null`;
      else if (isLeaf(item, depth + 1)) yield sep + (JSON.stringify(item) ?? 'null');
      else {
        if (sep) yield sep;
        yield* jsonPieces(item, depth + 1);
      }
    }
    yield ']';
    return;
  }
  yield '{';
  let first = true;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    const name = `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (isLeaf(item, depth + 1)) yield name + (JSON.stringify(item) ?? 'null');
    else {
      yield name;
      yield* jsonPieces(item, depth + 1);
    }
  }
  yield '}';
}

/** Written whole with `JSON.stringify`: a primitive, a value with `toJSON`, or a container at {@link STREAM_DEPTH}. */
function isLeaf(value: unknown, depth: number): boolean {
  return depth >= STREAM_DEPTH || value === null || typeof value !== 'object' || typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

/**
 * A JSON response body: a string when the text is small (one chunk, so the response keeps its Content-Length),
 * else a stream that serializes the rest as the client reads it.
 */
export function jsonBody(value: unknown): string | ReadableStream<Uint8Array> {
  const pieces = jsonPieces(value);
  let head = '';
  for (;;) {
    const next = pieces.next();
    if (next.done) return head;
    head += next.value;
    if (head.length >= CHUNK_CHARS) break;
  }
  const encoder = new TextEncoder();
  let pending: string | null = head;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      let text = pending ?? '';
      pending = null;
      while (text.length < CHUNK_CHARS) {
        const next = pieces.next();
        if (next.done) {
          if (text.length > 0) controller.enqueue(encoder.encode(text));
          controller.close();
          return;
        }
        text += next.value;
      }
      controller.enqueue(encoder.encode(text));
    },
  });
}
