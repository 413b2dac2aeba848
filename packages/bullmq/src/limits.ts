import type { ModelLimits } from './fleet.js';

/**
 * Reads fleet-wide model limits written as `model=in_flight[/per_second]` entries separated by commas, `*` for every
 * model not named (standalone: `DOCEVALS_MODEL_LIMITS`). A wrong entry throws, naming it and the expected form.
 *
 * @example
 * parseModelLimits('gpt-4o=8/20,*=16'); // { 'gpt-4o': { concurrency: 8, perSecond: 20 }, '*': { concurrency: 16 } }
 */
export function parseModelLimits(value: string, name = 'DOCEVALS_MODEL_LIMITS'): ModelLimits {
  const limits: ModelLimits = {};
  for (const entry of value.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
    const at = entry.lastIndexOf('=');
    const model = entry.slice(0, at).trim();
    const match = /^(\d+)(?:\/(\d+))?$/.exec(entry.slice(at + 1).trim());
    const concurrency = Number(match?.[1]);
    const perSecond = match?.[2] === undefined ? undefined : Number(match[2]);
    if (at <= 0 || model === '' || !match || concurrency < 1 || (perSecond !== undefined && perSecond < 1)) {
      throw new Error(`${name} must look like "model=in_flight[/per_second],*=in_flight" with integers >= 1 (received "${entry}").`);
    }
    if (model in limits) throw new Error(`${name} names the model "${model}" twice.`);
    limits[model] = { concurrency, ...(perSecond === undefined ? {} : { perSecond }) };
  }
  return limits;
}
