import { localRulesExtractor, type Extractor, type JobOptions } from '@docevals/core';
import { PROVIDERS } from '@docevals/core/internal';
import type { StandaloneConfig } from './config.js';

/**
 * The model configuration shared by the API server and `pnpm worker`: `local-rules`; the providers' models
 * (`gpt-*`, `o*`, `claude-*`, `gemini-*`, `grok-*`, `custom/*`) with the running organization's key, or the host's
 * (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`, `XAI_API_KEY`; with `OPENAI_BASE_URL`, a gateway, that
 * URL serves every provider the host has no own key for, as before); and, given `OPENAI_API_KEY` or
 * `OPENAI_BASE_URL`, every other model through OpenAI. The first extractor that matches a model serves it.
 *
 * @example
 * const extractors = await configuredExtractors(readConfig(process.env));
 */
export async function configuredExtractors(config: Pick<StandaloneConfig, 'openai' | 'providerKeys'>): Promise<Extractor[]> {
  const { openaiExtractor, providersExtractor, pdfTextLayer } = await import('@docevals/openai');
  const hostKeys: NonNullable<Parameters<typeof providersExtractor>[0]>['hostKeys'] = {};
  for (const provider of PROVIDERS) {
    const apiKey = config.providerKeys?.[provider];
    if (provider === 'OpenAI' && config.openai) hostKeys.OpenAI = config.openai;
    else if (apiKey) hostKeys[provider] = { apiKey };
    else if (config.openai?.baseURL) hostKeys[provider] = config.openai;
  }
  // local-rules reads PDF text layers through unpdf (in @docevals/openai).
  const extractors: Extractor[] = [localRulesExtractor({ textLayer: pdfTextLayer }), providersExtractor({ hostKeys })];
  if (config.openai) extractors.push(openaiExtractor({ ...config.openai, models: ['*'] }));
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
