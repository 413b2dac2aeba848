import { z } from 'zod';
import { findJsonProblem } from '../json/assert-json.js';
import { jsonObject } from './json.js';
import { LIMITS } from '../limits.js';

export const apiCostSchema = z.object({ value: z.number(), currency: z.string() });
export type ApiCost = z.infer<typeof apiCostSchema>;

/**
 * Metadata of an annotation or a prediction (docs/spec/interface.md 2.3). Extra keys are kept: a failed extraction's
 * metadata carries `error`, and hosts may add their own.
 */
export const metadataSchema = z.looseObject({
  extraction_id: z.string().nullable().optional(),
  likelihoods: jsonObject().nullable().optional(),
  field_locations: jsonObject().nullable().optional(),
  agentic_field_locations: jsonObject().nullable().optional(),
  consensus_details: z.array(jsonObject()).max(LIMITS.maxConsensusDetails).nullable().optional(),
  api_cost: apiCostSchema.nullable().optional(),
  error: z.string().nullable().optional(),
}).superRefine((value, ctx) => {
  const problem = findJsonProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
});
export type Metadata = z.infer<typeof metadataSchema>;
