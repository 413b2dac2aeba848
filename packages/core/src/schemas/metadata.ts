import { z } from 'zod';
import { described } from './described.js';
import { findJsonProblem } from '../json/assert-json.js';
import { jsonObject } from './json.js';
import { LIMITS } from '../limits.js';

export const apiCostSchema = z.object({
  value: described(z.number(), 'The cost of the call(s) that produced the data, in `currency`.'),
  currency: described(z.string(), 'An ISO 4217 currency code (`USD`).'),
}).meta({ description: 'What producing the data cost.' });
export type ApiCost = z.infer<typeof apiCostSchema>;

/**
 * Metadata of an annotation or a prediction (docs/spec/interface.md 2.3). Extra keys are kept: a failed extraction's
 * metadata carries `error`, and hosts may add their own.
 */
export const metadataSchema = z.looseObject({
  extraction_id: described(z.string().nullable().optional(), 'The id of the extraction run that produced the data (`extr_...`), or null.'),
  likelihoods: described(jsonObject().nullable().optional(), 'Per-field confidence between 0 and 1, in the tree of the data (`{"total": 0.97}`), or null where the model gave none.'),
  field_locations: described(jsonObject().nullable().optional(), 'Where each field was found in the document, in the tree of the data, when the extractor says so.'),
  agentic_field_locations: described(jsonObject().nullable().optional(), 'Field locations found by an agentic extractor, in the tree of the data.'),
  consensus_details: described(z.array(jsonObject()).max(LIMITS.maxConsensusDetails).nullable().optional(), 'With `n_consensus` ≥ 2: one object per run, the run\'s raw output (docs/spec/consensus.md). Null for one run.'),
  api_cost: apiCostSchema.nullable().optional(),
  error: described(z.string().nullable().optional(), 'Why the extraction failed (the prediction is then `{}`); absent when it succeeded.'),
}).superRefine((value, ctx) => {
  const problem = findJsonProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
}).meta({
  description:
    'Metadata of a prediction, or of an annotation (`annotation_metadata`). Other keys a host adds are kept as they are.',
});
export type Metadata = z.infer<typeof metadataSchema>;
