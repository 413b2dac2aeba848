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
  close(): Promise<void>;
}

/**
 * Builds a transport over a fresh service on 127.0.0.1: memory storage, the two organizations' keys, and the
 * extractors `local-rules` and {@link VISION_EXTRACTOR}, in that order.
 */
export type MakeTransport = () => Promise<Transport>;

/** An extractor of models matching /^vision-/ that answers `{}`: the second extractor of every conformance service. */
export const VISION_EXTRACTOR = {
  name: 'vision',
  models: [/^vision-/],
  modalities: ['image', 'text'] as Array<'image' | 'text'>,
  extract: async () => ({ data: {} }),
};
