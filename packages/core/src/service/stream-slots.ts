import { DocevalsError } from '../errors.js';

/** The default number of event streams one organization may hold open at once per transport and process. */
export const DEFAULT_MAX_EVENT_STREAMS_PER_ORGANIZATION = 20;

/**
 * Open event streams per organization, in this process: one past `max` gets a 429 `rate_limited` instead of another
 * stream (docs/spec/limits.md), so 1,000 subscribers of one tenant cannot crowd out the others. Used by the REST
 * handler (`GET .../events`) and the tRPC router (`iterations.events`), each with its own count.
 */
export class StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(readonly max: number) {
    if (!Number.isSafeInteger(max) || max < 0) throw new TypeError('maxEventStreamsPerOrganization must be a non-negative integer.');
  }

  /** A release function (call it once, when the stream ends), or null when `key` (the organization) already holds `max` streams. */
  acquire(key: string): (() => void) | null {
    const count = this.open.get(key) ?? 0;
    if (this.max > 0 && count >= this.max) return null;
    this.open.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left <= 0) this.open.delete(key);
      else this.open.set(key, left);
    };
  }

  /** {@link acquire}, or the 429 `rate_limited` to answer (retry after 5 s) when the organization holds `max` already. */
  take(key: string): () => void {
    const release = this.acquire(key);
    if (release) return release;
    throw new DocevalsError(
      'rate_limited',
      `This organization already has ${this.max} event streams open; close one (or share one stream among your listeners).`,
      { retry_after: 5 },
    );
  }
}
