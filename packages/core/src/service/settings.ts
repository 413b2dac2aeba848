import {
  DEFAULT_INFERENCE_SETTINGS,
  type DefaultInferenceSettings,
  type InferenceSettings,
  type InferenceSettingsInput,
} from '../schemas/inference-settings.js';
import { invalidRequest } from './validate.js';

function defined<T extends object>(value: T | undefined): Partial<T> {
  if (!value) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * An iteration's settings: the request's over the evaluation's defaults over the service defaults. A missing model
 * is a 422 at `path.model`.
 */
export function resolveSettings(
  request: InferenceSettingsInput | undefined,
  evaluationDefaults: InferenceSettingsInput | undefined,
  path: string,
): InferenceSettings {
  const merged = { ...DEFAULT_INFERENCE_SETTINGS, ...defined(evaluationDefaults), ...defined(request) };
  if (!merged.model) {
    throw invalidRequest([
      {
        path: `${path}.model`,
        message: 'a model is required: set inference_settings.model or the evaluation default_inference_settings.model',
      },
    ]);
  }
  return merged as InferenceSettings;
}

/** The evaluation's defaults as responses show them: every default filled in, the model only when set. */
export function renderDefaultSettings(stored: InferenceSettingsInput): DefaultInferenceSettings {
  return { ...DEFAULT_INFERENCE_SETTINGS, ...defined(stored) } as DefaultInferenceSettings;
}
