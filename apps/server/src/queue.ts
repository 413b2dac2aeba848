import { localRulesExtractor, type Extractor, type JobOptions } from '@docevals/core';
import type { StandaloneConfig } from './config.js';

/**
 * The model configuration shared by the API server and `pnpm worker`: `local-rules` (PDF text layers included), and, given `OPENAI_API_KEY` or
 * `OPENAI_BASE_URL`, every other model through OpenAI (after local-rules: the first extractor that matches a model
 * serves it, so local-rules keeps its model). The OpenAI SDK is imported only when configured: it is a third of a
 * start's module loading.
 *
 * @example
 * const extractors = await configuredExtractors(readConfig(process.env));
 */
export async function configuredExtractors(config: Pick<StandaloneConfig, 'openai'>): Promise<Extractor[]> {
  // local-rules reads PDF text layers through unpdf (in @docevals/openai, imported the first time a PDF is read).
  const textLayer: NonNullable<Parameters<typeof localRulesExtractor>[0]>['textLayer'] = async (document) =>
    (await import('@docevals/openai')).pdfTextLayer(document);
  const extractors: Extractor[] = [localRulesExtractor({ textLayer })];
  if (config.openai) {
    const { openaiExtractor } = await import('@docevals/openai');
    extractors.push(openaiExtractor({ ...config.openai, models: ['*'] }));
  }
  return extractors;
}

/** `DOCEVALS_MODEL_LIMITS` read, or nothing; throws naming the variable when it is wrong. */
export async function modelLimits(config: Pick<StandaloneConfig, 'modelLimits'>) {
  if (!config.modelLimits) return undefined;
  const { parseModelLimits } = await import('@docevals/bullmq');
  return parseModelLimits(config.modelLimits);
}

/** The BullMQ keys' prefix: under the store's prefix, so two docevals stores on one Redis keep separate queues. */
export const queuePrefix = (config: Pick<StandaloneConfig, 'redisKeyPrefix'>) => `${config.redisKeyPrefix ?? 'docevals:'}bull`;

/**
 * `DOCEVALS_QUEUE=bullmq`: the runner that enqueues on BullMQ (imported only then); otherwise nothing (the
 * in-process runner).
 *
 * @example
 * createDocevals({ storage, jobs: { ...(await queueRunner(config)) } });
 */
export async function queueRunner(config: StandaloneConfig, log: (line: string) => void): Promise<Pick<JobOptions, 'runner'>> {
  if (config.queue !== 'bullmq') return {};
  const { bullmqJobRunner } = await import('@docevals/bullmq');
  const limits = await modelLimits(config);
  return { runner: bullmqJobRunner({ connection: config.redisUrl!, prefix: queuePrefix(config), ...(limits ? { limits } : {}), log }) };
}
