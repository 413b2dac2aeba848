export { bullmqJobRunner } from './runner.js';
export { createDocevalsWorker, type DocevalsWorker, type DocevalsWorkerOptions } from './worker.js';
export type { ModelLimit, ModelLimits, QueueOptions, RedisConnection } from './fleet.js';
export { parseModelLimits } from './limits.js';
