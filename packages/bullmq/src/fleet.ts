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
  /** Log lines (a warning when no worker is connected; workers: one line per document). @default console.log */
  log?: (line: string) => void;
}

export interface JobData {
  organization_id: string;
  evaluation_id: string;
  iteration_id: string;
}
export interface DocumentJobData extends JobData {
  job_id: string;
  document_id: string;
  model: string;
}

export const PLANS_QUEUE = 'plans';
/** BullMQ queue names may not hold `:`; a model name may. */
export const documentQueueName = (model: string) => `docs-${encodeURIComponent(model)}`;
export const planJobId = (jobId: string) => `${jobId}-plan`;
export const documentJobId = (jobId: string, documentId: string) => `${jobId}-${encodeURIComponent(documentId)}`;
/** How long our per-job keys outlive their last write. */
export const KEY_TTL_SECONDS = 7 * 24 * 3600;
/** Attempts of one document job (store errors, a worker's crash); provider errors are retried inside the call. */
export const ATTEMPTS = 3;

export const bullConnection = (connection: RedisConnection): ConnectionOptions =>
  typeof connection === 'string' ? { url: connection, maxRetriesPerRequest: null } : connection;

export const newRedis = (connection: RedisConnection): Redis =>
  typeof connection === 'string' ? new Redis(connection, { maxRetriesPerRequest: null }) : connection.duplicate();

/** Lua: a call may start only while the job is not cancelled; registers it as in flight. */
const ENTER = `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SADD', KEYS[2], ARGV[1]) redis.call('EXPIRE', KEYS[2], ARGV[2]) return 1`;
/** Lua: cancel flag set and announced in one step; later ENTERs fail. */
const CANCEL = `redis.call('SET', KEYS[1], '1', 'EX', ARGV[1]) redis.call('PUBLISH', KEYS[2], ARGV[2]) return 1`;
/**
 * Lua: a document recorded, counted once whatever the re-runs (and in the model's counts by outcome); returns how
 * many are left (<= 0: finish).
 */
const RECORD = `if redis.call('SADD', KEYS[1], ARGV[1]) == 1 then
  redis.call('DECR', KEYS[2]) redis.call('HINCRBY', KEYS[3], ARGV[3], 1)
end
redis.call('EXPIRE', KEYS[1], ARGV[2]) redis.call('EXPIRE', KEYS[2], ARGV[2])
return tonumber(redis.call('GET', KEYS[2]) or '0')`;

/** Queues and keys of one fleet, opened lazily. */
export class Fleet {
  readonly prefix: string;
  readonly redis: Redis;
  readonly plans: Queue<JobData>;
  readonly log: (line: string) => void;
  private readonly documentQueues = new Map<string, Queue<DocumentJobData>>();
  private readonly limited = new Map<string, Promise<void>>();

  constructor(readonly options: QueueOptions) {
    this.prefix = options.prefix ?? 'docevals:bull';
    this.redis = newRedis(options.connection);
    this.log = options.log ?? ((line) => console.log(line));
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

  async enter(jobId: string, token: string): Promise<boolean> {
    return (await this.redis.eval(ENTER, 2, this.key('cancel', jobId), this.key('inflight', jobId), token, KEY_TTL_SECONDS)) === 1;
  }
  async leave(jobId: string, token: string): Promise<void> {
    await this.redis.srem(this.key('inflight', jobId), token);
  }
  async cancelled(jobId: string): Promise<boolean> {
    return (await this.redis.exists(this.key('cancel', jobId))) === 1;
  }
  async cancel(jobId: string): Promise<void> {
    await this.redis.eval(CANCEL, 2, this.key('cancel', jobId), this.cancelChannel, KEY_TTL_SECONDS, jobId);
  }
  inFlight(jobId: string): Promise<number> {
    return this.redis.scard(this.key('inflight', jobId));
  }
  /** Counts a document of the job done with `status` (succeeded, failed, skipped); how many are left. */
  async record(jobId: string, documentId: string, model: string, status: string): Promise<number> {
    const keys = [this.key('done', jobId), this.key('remaining', jobId), this.key('stats', model)];
    return Number(await this.redis.eval(RECORD, 3, ...keys, documentId, KEY_TTL_SECONDS, status));
  }

  async close(): Promise<void> {
    await Promise.all([this.plans.close(), ...[...this.documentQueues.values()].map((q) => q.close())]);
    this.redis.disconnect();
  }
}
