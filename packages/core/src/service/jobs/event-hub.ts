import type { IterationEvent } from '../../schemas/index.js';
import type { IterationRecord } from '../../storage.js';
import type { ServiceContext } from '../context.js';
import { iterationEvents } from './event-stream.js';
import { finalEventId, isActive } from './job-context.js';

/**
 * One storage reader per running iteration in this process, feeding every subscriber of its events (issue 26: 1,000
 * subscribers of one iteration were 1,000 pollers of the store). A feed is keyed by organization, iteration and job,
 * starts with its first subscriber, keeps the job's events read so far (a later subscriber, or one resuming with
 * `Last-Event-ID`, is served from them) and stops reading as soon as its last subscriber leaves. An iteration that is
 * over when asked is read directly (its events end at once): a feed is only for what is still running.
 */
export class EventFeeds {
  private readonly feeds = new Map<string, Feed>();

  /** Feeds reading the store now (tests and metrics). */
  get size(): number {
    return this.feeds.size;
  }

  /**
   * The iteration's events after `lastEventId`, as an iterator whose `return()` leaves at once (the pending `next()`
   * resolves done), whatever the reader is waiting for.
   */
  subscribe(ctx: ServiceContext, iteration: IterationRecord, lastEventId: string | undefined): AsyncIterator<IterationEvent> {
    const job = iteration.job;
    if (!job || !isActive(iteration.status) || lastEventId === finalEventId(job.id)) {
      return iterationEvents(ctx, ctx.jobs, iteration, lastEventId);
    }
    const key = `${iteration.organization_id}\u0000${iteration.id}\u0000${job.id}`;
    let feed = this.feeds.get(key);
    if (!feed) {
      const created: Feed = new Feed(ctx, iteration, () => {
        if (this.feeds.get(key) === created) this.feeds.delete(key);
      });
      feed = created;
      this.feeds.set(key, feed);
    }
    return feed.subscribe(lastEventId);
  }
}

/** The feeds of one service (its job context), made with its first subscriber. */
const feedsByService = new WeakMap<object, EventFeeds>();

/** {@link EventFeeds.subscribe} on the service's own feeds. */
export function subscribeEvents(ctx: ServiceContext, iteration: IterationRecord, lastEventId: string | undefined): AsyncIterator<IterationEvent> {
  return feedsOf(ctx).subscribe(ctx, iteration, lastEventId);
}

/** The service's feeds (tests count the readers with `.size`). */
export function feedsOf(ctx: Pick<ServiceContext, 'jobs'>): EventFeeds {
  let feeds = feedsByService.get(ctx.jobs);
  if (!feeds) feedsByService.set(ctx.jobs, (feeds = new EventFeeds()));
  return feeds;
}

type Wake = () => void;

/** One iteration job's events as read by one reader, and the subscribers reading them. */
class Feed {
  readonly events: IterationEvent[] = [];
  done = false;
  failed: { error: unknown } | undefined;
  private readonly subscribers = new Set<Subscriber>();
  private readonly abort = new AbortController();
  private readonly wakes = new Set<Wake>();

  constructor(ctx: ServiceContext, iteration: IterationRecord, private readonly onEmpty: () => void) {
    void this.read(iteration, ctx);
  }

  private async read(iteration: IterationRecord, ctx: ServiceContext): Promise<void> {
    try {
      for await (const event of iterationEvents(ctx, ctx.jobs, iteration, undefined, this.abort.signal)) {
        this.events.push(event);
        this.wake();
      }
    } catch (error) {
      this.failed = { error };
    }
    this.done = true;
    this.stop();
    this.wake();
  }

  private wake(): void {
    const wakes = [...this.wakes];
    this.wakes.clear();
    for (const wake of wakes) wake();
  }

  /** Resolves at the feed's next event or end, or at `cancel()`. */
  changed(): { promise: Promise<void>; cancel: () => void } {
    let wake!: Wake;
    const promise = new Promise<void>((resolve) => (wake = resolve));
    this.wakes.add(wake);
    return { promise, cancel: () => (this.wakes.delete(wake), wake()) };
  }

  subscribe(lastEventId: string | undefined): Subscriber {
    const subscriber = new Subscriber(this, lastEventId, () => {
      this.subscribers.delete(subscriber);
      if (this.subscribers.size === 0) this.stop();
    });
    this.subscribers.add(subscriber);
    return subscriber;
  }

  /** No one reads it any more, or it ended: it leaves the map and its reader stops (a new subscriber starts anew). */
  private stop(): void {
    if (this.abort.signal.aborted) return;
    this.onEmpty();
    this.abort.abort();
  }
}

/** One subscriber's place in a feed's events. */
class Subscriber implements AsyncIterator<IterationEvent> {
  private position = 0;
  /** `Last-Event-ID` not yet found among the feed's events (looked for from `scanned`). */
  private resumeAfter: string | undefined;
  private scanned = 0;
  /** The resumed id: the `progress` event that shares its document event's id is skipped as well. */
  private twin: string | undefined;
  private closed = false;
  private waiting: { cancel: () => void } | undefined;

  constructor(private readonly feed: Feed, lastEventId: string | undefined, private readonly leave: () => void) {
    this.resumeAfter = lastEventId;
  }

  async next(): Promise<IteratorResult<IterationEvent>> {
    for (;;) {
      if (this.closed) return { done: true, value: undefined };
      const event = this.take();
      if (event) return { done: false, value: event };
      if (this.feed.done && this.position >= this.feed.events.length && this.resumeAfter === undefined) {
        this.close();
        if (this.feed.failed) throw this.feed.failed.error;
        return { done: true, value: undefined };
      }
      const change = this.feed.changed();
      this.waiting = change;
      await change.promise;
      this.waiting = undefined;
    }
  }

  /** The next event to deliver, or undefined when this subscriber has them all so far. */
  private take(): IterationEvent | undefined {
    const events = this.feed.events;
    if (this.resumeAfter !== undefined) {
      for (; this.scanned < events.length; this.scanned++) {
        if (events[this.scanned]!.id !== this.resumeAfter) continue;
        this.position = this.scanned + 1;
        this.twin = this.resumeAfter;
        this.resumeAfter = undefined;
        break;
      }
      if (this.resumeAfter !== undefined) {
        if (!this.feed.done) return undefined;
        // An id this job never wrote (a previous job's): from the current job's first event, as the store reader does.
        this.resumeAfter = undefined;
        this.position = 0;
      }
    }
    while (this.position < events.length) {
      const event = events[this.position++]!;
      if (event.id === this.twin) continue;
      this.twin = undefined;
      return event;
    }
    return undefined;
  }

  async return(): Promise<IteratorResult<IterationEvent>> {
    this.close();
    return { done: true, value: undefined };
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.waiting?.cancel();
    this.leave();
  }
}

/**
 * An events iterable opened on its first `next()` (input checked, iteration read, subscription taken), whose
 * `return()` ends it at once: the pending `next()` resolves done and the subscription is left, where an async
 * generator would queue `return()` behind the read it is waiting for.
 */
export function lazyEvents(open: () => Promise<AsyncIterator<IterationEvent>>): AsyncIterable<IterationEvent> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<IterationEvent> {
      let inner: Promise<AsyncIterator<IterationEvent>> | undefined;
      let closed = false;
      let onClose!: () => void;
      const closing = new Promise<IteratorResult<IterationEvent>>((resolve) => (onClose = () => resolve({ done: true, value: undefined })));
      const close = async (): Promise<IteratorResult<IterationEvent>> => {
        if (!closed) {
          closed = true;
          onClose();
          const opened = await inner?.catch(() => undefined);
          await opened?.return?.()?.catch(() => undefined);
        }
        return { done: true, value: undefined };
      };
      return {
        async next() {
          if (closed) return { done: true, value: undefined };
          inner ??= open();
          try {
            const result = await Promise.race([inner.then((iterator) => (closed ? closing : iterator.next())), closing]);
            if (result.done) await close();
            return result;
          } catch (error) {
            await close();
            throw error;
          }
        },
        return: close,
      };
    },
  };
}
