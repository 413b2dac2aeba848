import { z } from 'zod';
import { described } from './described.js';
import { findJsonProblem, MAX_JSON_DEPTH, type JsonObject } from '../json/assert-json.js';

/**
 * A JSON object (annotation, prediction, json_schema, metadata maps). Checked without recursion: values that are
 * not JSON, cycles and nesting deeper than 64 levels are issues with the exact path.
 */
export const jsonObject = () =>
  z
    .record(z.string(), z.unknown())
    .superRefine((value, ctx) => {
      const problem = findJsonProblem(value, MAX_JSON_DEPTH);
      if (problem) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
      // The refinement proves what the type says (a JSON object, depth-bounded); zod cannot carry that into the type.
    }) as unknown as z.ZodType<JsonObject, Record<string, unknown>>;

/** An id a client may choose for a new object (docs/spec/service.md: `^[A-Za-z0-9_-]{1,128}$`). */
export const clientId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,128}$/, 'an id is 1 to 128 letters, digits, "_" or "-"');

/**
 * Any id in a path or reference, or a list cursor (an id): long or odd ids are simply not found (404). A NUL
 * character, which no store keeps in a key (PostgreSQL refuses it in text), is a 422 before any store call.
 */
export const idParam = z
  .string()
  .min(1, 'an id is required')
  .max(256)
  .refine((id) => !id.includes('\u0000'), 'an id never holds a NUL character');

/**
 * The path parameters, described once for every operation that takes them (the OpenAPI document reads the text;
 * an operation may still word its own).
 */
export const evaluationIdParam = described(idParam, 'The evaluation\'s id.');
export const documentIdParam = described(idParam, 'The document\'s id: its `file_id` (`file_...`), as in the document\'s `id`.');
export const iterationIdParam = described(idParam, 'The iteration\'s id (`eval_iter_...`).');
export const processorIdParam = described(idParam, 'The processor\'s id.');
