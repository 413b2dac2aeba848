/**
 * One way of calling the docevals API (REST over fetch, tRPC over its client), as the conformance suite sees it:
 * an operation of the core's table by name, its input as the table's schema takes it, and what came back.
 */

/** Who calls: org A's key, org B's key, or no key at all. */
export type Caller = 'org_a' | 'org_b' | 'anonymous';

/** One validation problem, as both transports send it. */
export interface Issue {
  path: string;
  message: string;
}

/**
 * The answer of one call: the data, or the error with its docevals code (the contract both transports share: cases
 * compare it) and the HTTP status this transport answered (REST's 422 is tRPC's 400 for `validation_error`; 401 and
 * 404 are the same in both).
 */
export type Outcome = { ok: true; data: any } | { ok: false; status: number; code: string; message: string; issues?: Issue[] };

export interface Transport {
  /**
   * Calls `operation` (a name of the core's operations table: `evals.list`, `evals.iterations.getSummary`...) with
   * `input` as `caller` (default org A).
   */
  call(operation: string, input?: unknown, caller?: Caller): Promise<Outcome>;
  /**
   * Opens the iteration's event stream (REST `GET .../events`, tRPC `iterations.events` over SSE) as `caller`
   * (default org A): `ok` (data null) once it is open and has sent an event of the iteration, or the error it was
   * refused with. `close()` leaves it.
   */
  subscribe(iteration: IterationRef, caller?: Caller): Promise<Subscription>;
  /**
   * Sends `operation` (a mutation with a JSON body: `evals.create`) as `caller` (default org A) by a client that writes
   * `head` and then one byte every 100 ms, never ending the body: the answer, how long it took from the first byte,
   * and its `Connection` header.
   */
  trickle(operation: string, head: string, caller?: Caller): Promise<{ outcome: Outcome; ms: number; connection: string | undefined }>;
  close(): Promise<void>;
}

export interface IterationRef {
  evaluation_id: string;
  iteration_id: string;
}

export interface Subscription {
  outcome: Outcome;
  close(): void;
}

/**
 * The event cap of every conformance service (`createDocevals({ limits: { maxEventStreamsPerOrganization } })`):
 * REST and tRPC take their places from the service's one count.
 */
export const CONFORMANCE_EVENT_STREAMS = 2;

/** The body-read time of every conformance service (REST `limits.bodyTimeoutMs`, the tRPC fetch handler's). */
export const CONFORMANCE_BODY_TIMEOUT_MS = 1_000;

/** A document with this file name waits in {@link VISION_EXTRACTOR} until {@link releaseHeldExtractions}. */
export const HELD_FILENAME = 'held.txt';
let releaseHeld = () => {};
let held = new Promise<void>((resolve) => (releaseHeld = resolve));

/** Ends the extractions of {@link HELD_FILENAME} documents waiting now (their iterations then complete). */
export function releaseHeldExtractions(): void {
  releaseHeld();
  held = new Promise<void>((resolve) => (releaseHeld = resolve));
}

/**
 * Builds a transport over a fresh service on 127.0.0.1: memory storage, the two organizations' keys, and the
 * extractors `local-rules` and {@link VISION_EXTRACTOR}, in that order.
 */
export type MakeTransport = () => Promise<Transport>;

/**
 * An extractor of models matching /^vision-/ that answers `{}`: the second extractor of every conformance service. A
 * {@link HELD_FILENAME} document waits first (until released or the call's signal aborts): its iteration stays running.
 */
export const VISION_EXTRACTOR = {
  name: 'vision',
  models: [/^vision-/],
  modalities: ['image', 'text'] as Array<'image' | 'text'>,
  extract: async (request: { document: { filename: string }; signal: AbortSignal }) => {
    if (request.document.filename === HELD_FILENAME) {
      await Promise.race([held, new Promise((resolve) => request.signal.addEventListener('abort', resolve, { once: true }))]);
    }
    return { data: {} };
  },
};
