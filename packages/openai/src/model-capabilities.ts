import type { InferenceSettings, Modality } from '@docevals/core';

/**
 * Whether `model` is a reasoning model: the o-series (`o1`, `o3-mini`, `o4-mini`, ...) and GPT-5 (`gpt-5`,
 * `gpt-5-mini`, ...) except the `gpt-5-chat` variants. Reasoning models reject `temperature` and take
 * `reasoning_effort`; other models are the other way round. A `provider/` prefix is ignored.
 *
 * @example
 * isReasoningModel('o4-mini'); // true
 * isReasoningModel('gpt-4o');  // false
 */
export function isReasoningModel(model: string): boolean {
  const name = model.replace(/^[^/]+\//, '').toLowerCase();
  if (/^o\d/.test(name)) return true;
  return /^gpt-5/.test(name) && !/^gpt-5(\.\d+)?-chat/.test(name);
}

/**
 * The sampling fields for the request: `temperature` for other models, `reasoning_effort` for reasoning models
 * (when the settings carry one). `minimal` exists only for GPT-5; the o-series get `low` instead.
 */
export function samplingParams(settings: InferenceSettings): { temperature?: number; reasoning_effort?: 'minimal' | 'low' | 'medium' | 'high' } {
  if (!isReasoningModel(settings.model)) return { temperature: settings.temperature };
  const effort = settings.reasoning_effort;
  if (!effort) return {};
  const oSeries = /^o\d/.test(settings.model.replace(/^[^/]+\//, '').toLowerCase());
  return { reasoning_effort: oSeries && effort === 'minimal' ? 'low' : effort };
}

/**
 * Whether `model` is expected to return token log-probabilities (`logprobs: true`): every model but the reasoning
 * models (see {@link isReasoningModel}), which reject the parameter. Override per extractor with the `logprobs`
 * option of `openaiExtractor`.
 *
 * @example
 * supportsLogprobs('gpt-4o-mini'); // true
 * supportsLogprobs('o3');          // false
 */
export function supportsLogprobs(model: string): boolean {
  return !isReasoningModel(model);
}

/** Models that read text only (no image input): GPT-3.5, o1-mini, o1-preview, o3-mini. */
const TEXT_ONLY = /^(gpt-3\.5|o1-mini|o1-preview|o3-mini)/;

/**
 * The modalities the OpenAI extractor reads with `model` (a name, or a `models` pattern such as `gpt-*`): `text`
 * only for the text-only models, else all four (`image` and `image+text` send rendered pages, `native` the file).
 * A `provider/` prefix is ignored.
 *
 * @example
 * modelModalities('gpt-4o');  // ['text', 'image', 'native', 'image+text']
 * modelModalities('o3-mini'); // ['text']
 */
export function modelModalities(model: string): Modality[] {
  const name = model.replace(/^[^/]+\//, '').toLowerCase();
  return TEXT_ONLY.test(name) ? ['text'] : ['text', 'image', 'native', 'image+text'];
}
