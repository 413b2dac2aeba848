import { Queue, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';

/**
 * The Redis side of the queue mode shared by API servers and workers (docs/spec/jobs.md, Queue mode): BullMQ queues
 * (one `plans` queue, one document queue per model) and the few keys BullMQ has no notion of (a job's cancel flag,
 * its calls in flight, its count of documents still to record), all under one prefix.
 */

/**
 * A Redis URL, or an ioredis client (BullMQ and we open our connections from it with `duplicate()`; it is not
 * closed by us). Blocking BullMQ connections need `maxRetriesPerRequest: null`, which a URL gets by itself.
 */
export type RedisConnection = string | Redis;

/** A fleet-wide limit for one model: calls in flight and started per second, across every worker. */
export interface ModelLimit {
  /** Documents (extractor calls) in flight at once across the fleet (BullMQ global concurrency). */
  concurrency?: number;
  /** Documents started per second across the fleet (BullMQ global rate limit). */
  perSecond?: number;
}

/** Per model, `'*'` for every model not named. */
export type ModelLimits = Record<string, ModelLimit>;

export interface QueueOptions {
  /** The Redis the queues live in (it may be the store's). */
  connection: RedisConnection;
  /** Prefix of every BullMQ key and of ours. @default 'docevals:bull' */
  prefix?: string;
  /**
   * Fleet-wide limits per model, written to Redis when this process first opens the model's queue: every worker
   * honours them (BullMQ keeps them in the queue's meta). Unset: whatever Redis has (none by default).
   */
  limits?: ModelLimits;
  /**
   * Log lines (a warning when no worker is connected; workers: one line per document, with `fields`: model,
   * iteration_id, document_id, outcome, duration_ms, attempt, trace_id, for a structured logger).
   * @default standard output, the lines of one tick in one write
   */
  log?: (line: string, fields?: Record<string, string | number>) => void;
}

export interface JobData {
  organization_id: string;
  evaluation_id: string;
  iteration_id: string;
  /**
   * The trace context of the iteration's span (W3C `traceparent`), when the API server traces: a document's span in
   * a worker is its child.
   */
  trace?: Record<string, string>;
}
/** A document job: a small batch of one docevals job's documents, run one after the other (docs/workers.md). */
export interface DocumentJobData extends JobData {
  job_id: string;
  document_ids: string[];
  model: string;
}

export const PLANS_QUEUE = 'plans';
/** BullMQ queue names may not hold `:`; a model name may. */
export const documentQueueName = (model: string) => `docs-${encodeURIComponent(model)}`;
export const planJobId = (jobId: string) => `${jobId}-plan`;
/** A batch's id: its place among the job's batches (the same when a plan runs again: BullMQ adds it once). */
export const documentJobId = (jobId: string, batch: number) => `${jobId}-b${batch}`;
/** How long our per-job keys outlive their last write. */
export const KEY_TTL_SECONDS = 7 * 24 * 3600;
/** Attempts of one document job (store errors, a worker's crash); provider errors are retried inside the call. */
export const ATTEMPTS = 3;

export const bullConnection = (connection: RedisConnection): ConnectionOptions =>
  typeof connection === 'string' ? { url: connection, maxRetriesPerRequest: null } : connection;

export const newRedis = (connection: RedisConnection): Redis =>
  typeof connection === 'string' ? new Redis(connection, { maxRetriesPerRequest: null }) : connection.duplicate();

/** Lua: cancel flag set and announced in one step; later ENTERs fail. */
const CANCEL = `redis.call('SET', KEYS[1], '1', 'EX', ARGV[1]) redis.call('PUBLISH', KEYS[2], ARGV[2]) return 1`;
/**
 * Lua, one round trip per document of a batch: leaves the calls over (ARGV[2], ids separated by spaces), records the
 * documents done since (pairs from ARGV[4]: id, outcome; each counted once whatever the re-runs, and in the model's
 * counts by outcome), then enters the next call (ARGV[3]) unless the job is cancelled. KEYS: cancel flag, calls in
 * flight, done set, documents left, the model's counts. Returns {entered (0/1), documents left (<= 0: finish)}.
 */
const STEP = `for id in string.gmatch(ARGV[2], '%S+') do redis.call('SREM', KEYS[2], id) end
if #ARGV >= 4 then
  for i = 4, #ARGV, 2 do
    if redis.call('SADD', KEYS[3], ARGV[i]) == 1 then
      redis.call('DECR', KEYS[4]) redis.call('HINCRBY', KEYS[5], ARGV[i + 1], 1)
    end
  end
  redis.call('EXPIRE', KEYS[3], ARGV[1]) redis.call('EXPIRE', KEYS[4], ARGV[1])
end
local entered = 0
if ARGV[3] ~= '' and redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('SADD', KEYS[2], ARGV[3]) redis.call('EXPIRE', KEYS[2], ARGV[1]) entered = 1
end
return {entered, tonumber(redis.call('GET', KEYS[4]) or '0')}`;

/**
 * Lua, fair shares between organizations by start-time fair queuing over BullMQ's priorities (lower runs first,
 * FIFO within one): `count` jobs of organization ARGV[1] get the priorities from max(virtual time, the
 * organization's last priority) + 1 on. The virtual time is the priority of the latest job a worker took, so an
 * organization with nothing queued starts at the front, level with the others' next jobs, and a backlog takes turns.
 * A queue with nothing waiting, prioritized, active or delayed starts its turns over (the priorities stay small): read
 * and reset in the same script as the turn is taken, so no other call's turn falls between the check and the reset.
 * KEYS: virtual time, the organizations' last priorities, then the BullMQ queue's wait, prioritized, active and
 * delayed keys. ARGV: organization, count, ttl. Returns the first priority.
 */
const FAIR = `local waiting = redis.call('LLEN', KEYS[3])
local marker = redis.call('LINDEX', KEYS[3], -1)
if marker and string.sub(marker, 1, 2) == '0:' then waiting = waiting - 1 end
if waiting + redis.call('ZCARD', KEYS[4]) + redis.call('LLEN', KEYS[5]) + redis.call('ZCARD', KEYS[6]) == 0 then
  redis.call('DEL', KEYS[1], KEYS[2])
end
local vt = tonumber(redis.call('GET', KEYS[1]) or '0')
local last = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local first = math.max(vt, last) + 1
redis.call('HSET', KEYS[2], ARGV[1], first + tonumber(ARGV[2]) - 1) redis.call('EXPIRE', KEYS[2], ARGV[3])
return first`;
/** Lua: a worker took a job of priority ARGV[1]: the virtual time moves up to it (never back). */
const ADVANCE = `if tonumber(ARGV[1]) > tonumber(redis.call('GET', KEYS[1]) or '0') then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
end
return 1`;
/** BullMQ's lowest priority: past it (after ~2 million turns without the queue ever empty) jobs share it, FIFO. */
export const PRIORITY_LIMIT = 2 ** 21;

/** The scripts, sent by hash (ioredis `defineCommand`: EVALSHA, EVAL once when Redis lacks it). */
interface FleetScripts {
  docevalsFleetCancel(cancel: string, channel: string, ttl: number, jobId: string): Promise<number>;
  docevalsFleetStep(...keysAndArgs: Array<string | number>): Promise<[number, number]>;
  docevalsFleetFair(...keysAndArgs: Array<string | number>): Promise<number>;
  docevalsFleetAdvance(virtualTime: string, priority: number, ttl: number): Promise<number>;
}

/** Lines to standard output, those of one tick in one write (a worker logs a line per document). */
function stdoutLines(): (line: string) => void {
  let pending: string[] = [];
  return (line) => {
    if (pending.push(line) > 1) return;
    setImmediate(() => {
      const text = `${pending.join('\n')}\n`;
      pending = [];
      process.stdout.write(text);
    });
  };
}

/** Queues and keys of one fleet, opened lazily. */
export class Fleet {
  readonly prefix: string;
  readonly redis: Redis & FleetScripts;
  readonly plans: Queue<JobData>;
  readonly log: (line: string, fields?: Record<string, string | number>) => void;
  private readonly documentQueues = new Map<string, Queue<DocumentJobData>>();
  private readonly limited = new Map<string, Promise<void>>();

  constructor(readonly options: QueueOptions) {
    this.prefix = options.prefix ?? 'docevals:bull';
    const redis = newRedis(options.connection);
    redis.defineCommand('docevalsFleetCancel', { numberOfKeys: 2, lua: CANCEL });
    redis.defineCommand('docevalsFleetStep', { numberOfKeys: 5, lua: STEP });
    redis.defineCommand('docevalsFleetFair', { numberOfKeys: 6, lua: FAIR });
    redis.defineCommand('docevalsFleetAdvance', { numberOfKeys: 1, lua: ADVANCE });
    this.redis = redis as Redis & FleetScripts;
    this.log = options.log ?? stdoutLines();
    this.plans = new Queue<JobData>(PLANS_QUEUE, { connection: bullConnection(options.connection), prefix: this.prefix });
  }

  key(name: string, jobId: string): string {
    return `${this.prefix}:dv:${name}:${jobId}`;
  }
  get cancelChannel(): string {
    return `${this.prefix}:dv:cancel`;
  }
  get modelsKey(): string {
    return `${this.prefix}:dv:models`;
  }
  /** Announces a model's first queue: workers open a worker for it at once rather than at their next look. */
  get modelsChannel(): string {
    return `${this.prefix}:dv:new-model`;
  }

  /** The model's document queue; its fleet-wide limits written once per process when configured. */
  async documents(model: string): Promise<Queue<DocumentJobData>> {
    let queue = this.documentQueues.get(model);
    if (!queue) {
      queue = new Queue<DocumentJobData>(documentQueueName(model), { connection: bullConnection(this.options.connection), prefix: this.prefix });
      this.documentQueues.set(model, queue);
    }
    let limiting = this.limited.get(model);
    if (!limiting) {
      limiting = this.applyLimits(queue, model);
      this.limited.set(model, limiting);
    }
    await limiting;
    return queue;
  }

  private async applyLimits(queue: Queue<DocumentJobData>, model: string): Promise<void> {
    const limits = this.options.limits;
    if (!limits) return;
    const limit = limits[model] ?? limits['*'];
    if (!limit) return;
    if (limit.concurrency !== undefined) await queue.setGlobalConcurrency(limit.concurrency);
    if (limit.perSecond !== undefined) await queue.setGlobalRateLimit(limit.perSecond, 1_000);
  }

  /** The models that ever had a document queue in this fleet (workers watch it to open their workers). */
  models(): Promise<string[]> {
    return this.redis.smembers(this.modelsKey);
  }
  /** Adds the model to the fleet's set, announcing it when it is new. */
  async addModel(model: string): Promise<void> {
    if ((await this.redis.sadd(this.modelsKey, model)) === 1) await this.redis.publish(this.modelsChannel, model);
  }

  /**
   * One step of a batch: leaves the calls `leave` (ids without spaces), records `done` (document id, outcome:
   * succeeded, failed, skipped), then enters the call `enter` (if any) unless the job is cancelled: once a cancel is
   * acknowledged, no call starts. Returns whether `enter` was entered and how many of the job's documents are left
   * to record.
   */
  async step(jobId: string, model: string, leave: readonly string[], done: ReadonlyArray<readonly [string, string]>, enter: string | null) {
    const keys = [this.key('cancel', jobId), this.key('inflight', jobId), this.key('done', jobId), this.key('remaining', jobId), this.key('stats', model)];
    const [entered, left] = await this.redis.docevalsFleetStep(...keys, KEY_TTL_SECONDS, leave.join(' '), enter ?? '', ...done.flat());
    return { entered: entered === 1, left: Number(left) };
  }
  /**
   * The priorities of `count` new jobs of `organization` on `queue` (see {@link FAIR}): consecutive, from the one
   * returned. A queue with nothing waiting or running starts its turns over (the priorities stay small), checked in
   * the same script.
   */
  async fairPriorities(queue: Pick<Queue, 'name' | 'keys'>, organization: string, count: number): Promise<number> {
    const { name, keys } = queue;
    return this.redis.docevalsFleetFair(
      this.key('vt', name),
      this.key('turns', name),
      keys.wait,
      keys.prioritized,
      keys.active,
      keys.delayed,
      organization,
      count,
      KEY_TTL_SECONDS,
    );
  }
  /** A worker took a job of `priority` from `queue`: the queue's virtual time moves up to it. */
  async advance(queueName: string, priority: number | undefined): Promise<void> {
    if (priority) await this.redis.docevalsFleetAdvance(this.key('vt', queueName), priority, KEY_TTL_SECONDS);
  }
  async cancelled(jobId: string): Promise<boolean> {
    return (await this.redis.exists(this.key('cancel', jobId))) === 1;
  }
  async cancel(jobId: string): Promise<void> {
    await this.redis.docevalsFleetCancel(this.key('cancel', jobId), this.cancelChannel, KEY_TTL_SECONDS, jobId);
  }
  inFlight(jobId: string): Promise<number> {
    return this.redis.scard(this.key('inflight', jobId));
  }
  /** Counts documents of the job done with their outcome (succeeded, failed, skipped); how many are left. */
  async record(jobId: string, model: string, done: ReadonlyArray<readonly [string, string]>): Promise<number> {
    return (await this.step(jobId, model, [], done, null)).left;
  }

  async close(): Promise<void> {
    await Promise.all([this.plans.close(), ...[...this.documentQueues.values()].map((q) => q.close())]);
    this.redis.disconnect();
  }
}
