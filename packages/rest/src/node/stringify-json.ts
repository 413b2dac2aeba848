type Frame = { value: unknown } | { text: string; leave?: object };

/**
 * `JSON.stringify` for a value a body parser produced, without recursion: V8's own recurses and throws
 * "Maximum call stack size exceeded" on a body nested 100,000 levels deep, which must reach the core and be refused
 * there as a 422, not fail here. Follows `JSON.stringify`: `toJSON` is honoured (a `Date` becomes its ISO string),
 * `undefined`, functions and symbols are left out of objects and are `null` in arrays, non-finite numbers are
 * `null`; a cycle or a BigInt is a TypeError.
 *
 * @example
 * stringifyJson({ a: [1, 'x', null] }); // '{"a":[1,"x",null]}'
 */
export function stringifyJson(value: unknown): string {
  const out: string[] = [];
  const open = new Set<object>(); // containers being written: meeting one again is a cycle
  const stack: Frame[] = [{ value }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if ('text' in frame) {
      out.push(frame.text);
      if (frame.leave) open.delete(frame.leave);
      continue;
    }
    let v = frame.value;
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      v = (v as { toJSON: () => unknown }).toJSON();
    }
    if (isOmitted(v) || v === null) {
      out.push('null');
      continue;
    }
    if (typeof v === 'bigint') throw new TypeError('Do not know how to serialize a BigInt');
    if (typeof v !== 'object') {
      out.push(typeof v === 'number' && !Number.isFinite(v) ? 'null' : JSON.stringify(v));
      continue;
    }
    if (open.has(v)) throw new TypeError('Converting circular structure to JSON');
    open.add(v);
    if (Array.isArray(v)) {
      stack.push({ text: ']', leave: v });
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i] });
        if (i > 0) stack.push({ text: ',' });
      }
      out.push('[');
      continue;
    }
    const entries = Object.entries(v as Record<string, unknown>).filter(([, item]) => !isOmitted(item));
    stack.push({ text: '}', leave: v });
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i]!;
      stack.push({ value: item });
      stack.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(key)}:` });
    }
    out.push('{');
  }
  return out.join('');
}

function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}
