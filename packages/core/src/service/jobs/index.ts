/*
 * Iterations as durable jobs (docs/spec/jobs.md), one concern a file, each importing only those below it:
 *   contract.ts          the job contract (JobRunner, JobWork, JobOptions): the foot, no import from the service
 *   job-context.ts       this process's job state (owner id, local wake-ups), ids of jobs and events
 *   registry.ts          the `jobs` collection of active jobs
 *   events.ts            writes of a job's events (per document, batched; the final one)
 *   event-stream.ts      an iteration's events read as a stream
 *   event-hub.ts         one such reader per running iteration, shared by its subscribers in this process
 *   leases.ts            the iteration lease (in-process and queue)
 *   prediction-writes.ts predictions saved by group commit
 *   outcomes.ts          documents still to run; a job finished, failed, cancelled
 *   run.ts               one job run whole in this process; the jobs left to resume
 *   queued.ts            queue mode: plan, run documents, finish
 *   work.ts              the steps over a service context, given to a runner
 *   in-process-runner.ts the default runner
 */
export * from './contract.js';
export { inProcessJobRunner } from './in-process-runner.js';
export { createJobWork } from './work.js';
export { FairSlots } from './fair-slots.js';
export { isActive, LocalSignals, newJobId, type JobContext } from './job-context.js';
export { assertBelowCap, registerJob, unregisterIteration } from './registry.js';
export { cancelJob } from './outcomes.js';
export { iterationEvents } from './event-stream.js';
export { feedsOf, lazyEvents, subscribeEvents } from './event-hub.js';
