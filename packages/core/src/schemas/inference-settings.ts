import { z } from 'zod';

export const MODALITIES = ['text', 'image', 'native', 'image+text'] as const;
export const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;
export const BROWSER_CANVASES = ['A3', 'A4', 'A5'] as const;

export const modalitySchema = z.enum(MODALITIES);
export type Modality = (typeof MODALITIES)[number];
export const reasoningEffortSchema = z.enum(REASONING_EFFORTS).nullable();
export const browserCanvasSchema = z.enum(BROWSER_CANVASES);

/** The settings fields with their bounds (docs/spec/service.md, Inference settings). Every field optional. */
export const settingsFields = {
  model: z.string().min(1, 'model must not be empty').max(256),
  temperature: z.number().min(0).max(2),
  modality: modalitySchema,
  reasoning_effort: reasoningEffortSchema,
  image_resolution_dpi: z.number().int().min(36).max(600),
  browser_canvas: browserCanvasSchema,
  n_consensus: z.number().int().min(1).max(16),
};

/** The names of the inference settings: the keys of {@link settingsFields}, the one list of them. */
export const INFERENCE_SETTING_KEYS = Object.freeze(Object.keys(settingsFields) as Array<keyof typeof settingsFields>);

/** Inference settings as a request carries them: every field optional, merged over defaults. */
export const inferenceSettingsInputSchema = z.object(settingsFields).partial();
export type InferenceSettingsInput = z.infer<typeof inferenceSettingsInputSchema>;

/** Resolved inference settings: request over evaluation defaults over {@link DEFAULT_INFERENCE_SETTINGS}. */
export const inferenceSettingsSchema = z.object(settingsFields);
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
export const defaultInferenceSettingsSchema = inferenceSettingsSchema.extend({ model: z.string().optional() });
export type DefaultInferenceSettings = z.infer<typeof defaultInferenceSettingsSchema>;
