import { DocevalsError } from '../errors.js';

/** The default number of event streams one organization may hold open at once per service instance (REST and tRPC together). */
export const DEFAULT_MAX_EVENT_STREAMS_PER_ORGANIZATION = 20;

/**
 * Open event streams per organization, in this process: one past `max` gets a 429 `rate_limited` instead of another
 * stream (docs/spec/limits.md), so 1,000 subscribers of one tenant cannot crowd out the others. A service instance
 * owns one ({@link eventStreamSlots}): the REST handler (`GET .../events`) and the tRPC router (`iterations.events`)
 * both take their places from it, so an organization has `max` streams whichever transports it uses.
 */
export class StreamSlots {
  private readonly open = new Map<string, number>();
  #max: number;
  /** Who set `max` explicitly (an option of createDocevals or of a transport), null while it is the default. */
  #setBy: string | null = null;

  constructor(max: number) {
    this.#max = checkedMax(max);
  }

  get max(): number {
    return this.#max;
  }

  /**
   * Sets the cap from an option (`by` names it, for the error). The cap is one for every transport of the service:
   * a second option with another value is a TypeError naming both, rather than one of them silently ignored.
   */
  configure(max: number, by: string): void {
    checkedMax(max);
    if (this.#setBy !== null && max !== this.#max) {
      throw new TypeError(
        `${by}: maxEventStreamsPerOrganization ${max} differs from the ${this.#max} set by ${this.#setBy}. REST and tRPC share one cap per service (docs/spec/limits.md): set it once, e.g. createDocevals({ limits: { maxEventStreamsPerOrganization } }).`,
      );
    }
    this.#max = max;
    this.#setBy ??= by;
  }

  /** A release function (call it once, when the stream ends), or null when `key` (the organization) already holds `max` streams. */
  acquire(key: string): (() => void) | null {
    const count = this.open.get(key) ?? 0;
    if (this.#max > 0 && count >= this.#max) return null;
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
      `This organization already has ${this.#max} event streams open; close one (or share one stream among your listeners).`,
      { retry_after: 5 },
    );
  }

  /** Streams `key` holds open now (tests, stats). */
  count(key: string): number {
    return this.open.get(key) ?? 0;
  }
}

function checkedMax(max: number): number {
  if (!Number.isSafeInteger(max) || max < 0) throw new TypeError('maxEventStreamsPerOrganization must be a non-negative integer.');
  return max;
}

const SERVICE_SLOTS = new WeakMap<object, StreamSlots>();

/** Gives `service` its one count of event streams (createDocevals does, for the service it builds). */
export function ownEventStreamSlots(service: object, slots: StreamSlots): void {
  SERVICE_SLOTS.set(service, slots);
}

/**
 * The one count of open event streams of a service instance, which every transport serving it takes places from.
 * A service not built by createDocevals (a host's own object of the same shape) gets one on first use, with the default cap.
 */
export function eventStreamSlots(service: object): StreamSlots {
  let slots = SERVICE_SLOTS.get(service);
  if (!slots) SERVICE_SLOTS.set(service, (slots = new StreamSlots(DEFAULT_MAX_EVENT_STREAMS_PER_ORGANIZATION)));
  return slots;
}
