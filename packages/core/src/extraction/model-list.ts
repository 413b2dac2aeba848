import type { Extractor } from '../extractor.js';
import { MODALITIES, type Modality } from '../schemas/inference-settings.js';
import type { Model, ModelList } from '../schemas/models.js';
import { describeModelPattern } from './model-routing.js';

/**
 * The models the extractors serve, in routing order: one entry per `models` entry (names, `*` globs, RegExps as
 * `/source/flags`, the last two with `pattern: true`), with the extractor's name and the modalities it declares
 * for that entry (`null` when it declares none). An entry an earlier extractor already lists is left out: the
 * first extractor serves it.
 *
 * @example
 * listModels([localRulesExtractor(), openaiExtractor({ models: ['gpt-*'] })]);
 * // { data: [{ id: 'local-rules', extractor: 'local-rules', pattern: false, modalities: ['text'] },
 * //          { id: 'gpt-*', extractor: 'openai', pattern: true, modalities: ['text', 'image', 'native', 'image+text'] }] }
 */
export function listModels(extractors: ReadonlyArray<Extractor>): ModelList {
  const seen = new Set<string>();
  const data: Model[] = [];
  for (const extractor of extractors) {
    for (const entry of extractor.models) {
      const id = describeModelPattern(entry);
      if (seen.has(id)) continue;
      seen.add(id);
      data.push({
        id,
        extractor: extractor.name,
        pattern: entry instanceof RegExp || id.includes('*'),
        modalities: declaredModalities(extractor, id),
      });
    }
  }
  return { data };
}

/** The extractor's modalities for one entry, known values only, in the order of {@link MODALITIES}. */
function declaredModalities(extractor: Extractor, id: string): Modality[] | null {
  const declared = typeof extractor.modalities === 'function' ? extractor.modalities(id) : extractor.modalities;
  if (!declared) return null;
  return MODALITIES.filter((m) => declared.includes(m));
}
