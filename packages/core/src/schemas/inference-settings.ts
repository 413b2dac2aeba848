import { z } from 'zod';
import { described } from './described.js';

export const MODALITIES = ['text', 'image', 'native', 'image+text'] as const;
export const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;
export const BROWSER_CANVASES = ['A3', 'A4', 'A5'] as const;

export const modalitySchema = z.enum(MODALITIES);
export type Modality = (typeof MODALITIES)[number];
export const reasoningEffortSchema = z.enum(REASONING_EFFORTS).nullable();
export const browserCanvasSchema = z.enum(BROWSER_CANVASES);

/** The settings fields with their bounds (docs/spec/service.md, Inference settings). Every field optional. */
export const settingsFields = {
  model: described(z.string().min(1, 'model must not be empty').max(256), 'The model that runs (or ran) the extraction.'),
  temperature: described(z.number().min(0).max(2), 'Sampling temperature, 0 to 2.'),
  modality: described(modalitySchema, 'How the document reaches the model: `text`, `image` (pages as images), `image+text` or `native` (the file as it is).'),
  reasoning_effort: described(reasoningEffortSchema, 'Reasoning effort for models that reason; null leaves it to the model.'),
  image_resolution_dpi: described(z.number().int().min(36).max(600), 'Resolution of pages rendered as images, in dots per inch.'),
  browser_canvas: described(browserCanvasSchema, 'Page size text and HTML documents are laid out on when rendered as pages.'),
  n_consensus: described(z.number().int().min(1).max(16), 'How many times each document is extracted (runs reconciled into one prediction).'),
};

/** The names of the inference settings: the keys of {@link settingsFields}, the one list of them. */
export const INFERENCE_SETTING_KEYS = Object.freeze(Object.keys(settingsFields) as Array<keyof typeof settingsFields>);

/** Inference settings as a request carries them: every field optional, merged over defaults. */
export const inferenceSettingsInputSchema = z.object(settingsFields).partial().meta({
  description:
    'Inference settings in a request: every field optional. An iteration uses these over the evaluation\'s ' +
    '`default_inference_settings` over the defaults shown.',
});
export type InferenceSettingsInput = z.infer<typeof inferenceSettingsInputSchema>;

/** Resolved inference settings: request over evaluation defaults over {@link DEFAULT_INFERENCE_SETTINGS}. */
export const inferenceSettingsSchema = z.object(settingsFields).meta({
  description: 'The settings an iteration ran with: every one resolved.',
});
export type InferenceSettings = z.infer<typeof inferenceSettingsSchema>;

/** Defaults for omitted settings (docs/spec/service.md). `model` has none: a missing model is a 422. */
export const DEFAULT_INFERENCE_SETTINGS: Omit<InferenceSettings, 'model'> = Object.freeze({
  temperature: 0,
  modality: 'native',
  reasoning_effort: 'medium',
  image_resolution_dpi: 96,
  browser_canvas: 'A4',
  n_consensus: 1,
});

/** Evaluation defaults in responses: every default filled in, `model` only when one was set. */
export const defaultInferenceSettingsSchema = inferenceSettingsSchema.extend({ model: z.string().optional() }).meta({
  description: 'An evaluation\'s default inference settings, every default filled in.',
});
export type DefaultInferenceSettings = z.infer<typeof defaultInferenceSettingsSchema>;
