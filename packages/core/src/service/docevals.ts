import { DocevalsError } from '../errors.js';
import { listModels } from '../extraction/index.js';
import { JOBS_SCOPE } from '../storage.js';
import { ATTR, inSpan, inStreamSpan, SPAN } from '../telemetry/index.js';
import { analysisOperations } from './analyses.js';
import type { OperationContext } from './context.js';
import { organizationJobStats } from './job-stats.js';
import type { JobRunnerStats } from './jobs/index.js';
import { documentOperations } from './documents.js';
import { evaluationOperations } from './evaluations.js';
import { iterationOperations } from './iterations.js';
import { processorOperations } from './processors.js';
import { sampleOperations } from './sample.js';
import { SECRETS_SCOPE } from './secrets.js';
import type { DocevalsOptions } from './types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyOperation = (organizationId: string, input?: any) => Promise<unknown> | AsyncIterable<unknown>;

/** Every operation checks the caller's organization first: the transports pass what `authenticate` returned. */
function scoped<T extends { [K in keyof T]: AnyOperation }>(operations: T, group = ''): T {
  const out: Record<string, AnyOperation> = {};
  for (const [name, operation] of Object.entries(operations) as Array<[string, AnyOperation]>) {
    out[name] = (organizationId: string, input?: unknown) => {
      if (typeof organizationId !== 'string' || organizationId.length === 0 || organizationId === JOBS_SCOPE || organizationId === SECRETS_SCOPE) {
        const error = new DocevalsError('unauthorized', 'An organization is required: authenticate first.');
        // A stream operation answers as a stream does: its iteration fails.
        if (STREAMS.has(`${group}${name}`)) return (async function* () { throw error; })();
        return Promise.reject(error);
      }
      return operation(organizationId, input);
    };
  }
  // The loop wraps each member of `operations` with the same signature; TypeScript cannot follow a loop's keys.
  return out as T;
}

/**
 * The service's public shape over its context: the implementations of `service/*.ts`, each scoped to an
 * organization and traced. Their signatures (overloads included) are declared once, where they are implemented;
 * the {@link Docevals} type is this function's.
 */
export function assembleDocevals(
  options: DocevalsOptions,
  ctx: OperationContext,
  extractors: NonNullable<DocevalsOptions['extractors']>,
  onJobError: (error: unknown) => void,
) {
  const analyses = scoped(analysisOperations(ctx));
  const evaluations = evaluationOperations(ctx);
  const iterations = iterationOperations(ctx);
  const docevals = {
    evals: {
      ...scoped(evaluations),
      ...scoped(sampleOperations(ctx, options.sample, { evaluations, iterations })),
      compare: analyses.compare,
      leaderboard: analyses.leaderboard,
      matrix: analyses.matrix,
      documents: { ...scoped(documentOperations(ctx)), import: analyses.importAnnotations },
      iterations: { ...scoped(iterations, 'evals.iterations.'), fields: analyses.fields, export: analyses.export, distances: analyses.distances },
    },
    processors: scoped(processorOperations(ctx)),
    /**
     * Each organization's provider keys (`OpenAI`, `Anthropic`, `Gemini`, `xAI`) and custom OpenAI-compatible
     * endpoint, sealed by `DocevalsOptions.secrets.cipher`; no call ever answers a key (docs/secrets.md).
     *
     * @example
     * await docevals.secrets.externalApiKeys.create('org_1', { provider: 'Anthropic', api_key: 'sk-ant-...' });
     * await docevals.secrets.externalApiKeys.list('org_1'); // [{ provider: 'OpenAI', is_configured: false, last_updated: null }, ...]
     */
    secrets: {
      externalApiKeys: scoped(ctx.secrets.externalApiKeys),
      /** The organization's own OpenAI-compatible endpoint: its models run as `custom/<name>`. */
      customEndpoint: scoped(ctx.secrets.customEndpoint),
      /**
       * For the host, at start: checks the master key against the store (a wrong key is a `not_configured` error
       * naming the key id the store needs) and, when the store is under the previous key, re-encrypts every secret.
       */
      check: (): Promise<{ key_id: string; reencrypted: number }> => ctx.secrets.check(),
      /** Re-encrypts every organization's secrets not under the current master key; returns how many. */
      reencrypt: (): Promise<number> => ctx.secrets.reencrypt(),
      /** Whether a cipher was given (else every secrets call is a 501 `not_configured`). */
      configured: options.secrets?.cipher != null,
    },
    /** The model names and patterns the registered extractors serve. */
    models: (): string[] => ctx.runner.servedModels(),
    /**
     * GET /v1/models: the served models with their extractor, `pattern` flag and modalities. For an organization: the
     * models it can run now, with the `provider` serving each (its own key or the host's); without one, the host's.
     */
    listModels: async (organizationId?: string) =>
      organizationId === undefined ? listModels(extractors) : scoped({ m: (org: string) => ctx.secrets.modelsFor(org) }).m(organizationId),
    /**
     * What the job runner's queues hold (a queue runner: depth, running, failed, completed per model; workers seen),
     * for the host; null for the in-process runner, which has none. With an organization, what that organization may
     * see (`GET /health?detail=true`): its own queued and running iterations per model, and the fleet's totals
     * without model names.
     */
    jobStats: async (organizationId?: string): Promise<JobRunnerStats | null> =>
      organizationId !== undefined
        ? scoped({ m: (org: string) => organizationJobStats(ctx, org) }).m(organizationId)
        : ctx.jobRunner.stats ? ctx.jobRunner.stats() : null,
    /** Stops the job runner (local runs aborted, their leases released for another server), then the storage's `close()`. */
    close: async (): Promise<void> => {
      await ctx.jobRunner.close().catch(onJobError);
      await options.storage.close();
    },
  };
  traceOperations(docevals.evals, 'evals.');
  traceOperations(docevals.processors, 'processors.');
  traceOperations(docevals.secrets.externalApiKeys, 'secrets.externalApiKeys.');
  traceOperations(docevals.secrets.customEndpoint, 'secrets.customEndpoint.');
  return docevals;
}

type Method = (...args: never[]) => unknown;
/** A group of the service as the public type shows it: methods, and read-only sub-groups and fields. */
type Group<T> = Flat<{ [K in keyof T as T[K] extends Method ? K : never]: T[K] } & { readonly [K in keyof T as T[K] extends Method ? never : K]: T[K] extends object ? Group<T[K]> : T[K] }>;
type Flat<T> = { [K in keyof T]: T[K] };

/**
 * The docevals service: every operation of the REST API, in-process. Each takes the caller's organization id first
 * (the transports get it from the API key) and the operation's input, path parameters included as snake_case
 * fields. Inputs are validated at runtime too; errors are {@link DocevalsError}s.
 *
 * Derived from the implementations (`assembleDocevals`): a method added to `service/*.ts` is here, with its
 * signature and documentation, and the operations table (`operations/*.ts`) is checked against it.
 */
export type Docevals = Group<ReturnType<typeof assembleDocevals>>;

/** Operations that answer a stream (an iterable read over time) rather than a promise. */
const STREAMS = new Set(['evals.iterations.events']);

/**
 * Each operation of a group (and of its sub-groups) runs in a span named by the operation (`docevals
 * evals.iterations.create`: the name of the operations table and of the tRPC procedure), whatever the transport. The
 * event stream's span lasts as long as its reader reads (an SSE stream: from its first event to its end or the
 * client going away).
 */
function traceOperations(group: object, prefix: string): void {
  const target = group as Record<string, unknown>;
  for (const [name, value] of Object.entries(target)) {
    const path = `${prefix}${name}`;
    if (typeof value === 'object' && value !== null) traceOperations(value, `${path}.`);
    if (typeof value !== 'function') continue;
    const attributes = (organizationId: string) => ({ attributes: { [ATTR.operation]: path, [ATTR.organization]: String(organizationId) } });
    if (STREAMS.has(path)) {
      const stream = value as (organizationId: string, input?: unknown) => AsyncIterable<unknown>;
      target[name] = (organizationId: string, input?: unknown) =>
        inStreamSpan(SPAN.operation(path), attributes(organizationId), () => stream(organizationId, input));
      continue;
    }
    const operation = value as (organizationId: string, input?: unknown) => Promise<unknown>;
    target[name] = (organizationId: string, input?: unknown) => inSpan(SPAN.operation(path), attributes(organizationId), () => operation(organizationId, input));
  }
}
