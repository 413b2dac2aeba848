// The standalone server's sample evaluation (`POST /v1/evals/sample`, the web app's "Load the sample"): the eight
// hand-written invoices and 24 generated invoices, receipts and expense forms (text, Markdown, HTML, PDF, PNG), each
// with its ground truth, and two imported, named iterations. Generated at each load, nothing read from disk.
import type { SampleEvaluation } from '@docevals/core';
import { baseline, candidate } from './predictions.js';
import { generatedSpecs, HAND_WRITTEN, SAMPLE_SCHEMA, type SampleSpec } from './records.js';
import { sampleFile, type SampleFile } from './render.js';

export { SAMPLE_SCHEMA };

/** Every document of the sample, in the evaluation's order. */
export const sampleSpecs = (): SampleSpec[] => [...HAND_WRITTEN, ...generatedSpecs()];

/** The sample's documents as files (what `pnpm sample:write` puts in a folder). */
export async function sampleFiles(): Promise<Array<SampleFile & { filename: string; spec: SampleSpec }>> {
  return Promise.all(sampleSpecs().map(async (spec) => ({ ...(await sampleFile(spec)), spec })));
}

const dataUrl = (file: SampleFile) => `data:${file.type};base64,${Buffer.from(file.bytes).toString('base64')}`;

/** `createDocevals({ sample })`: the sample's `evals.create` input and its iterations' names. */
export async function sampleEvaluation(): Promise<SampleEvaluation> {
  const files = await sampleFiles();
  const iterationOf = (read: typeof baseline) => ({
    inference_settings: { model: 'sample-model' },
    predictions: files.map(({ spec }, i) => read(spec, i)),
  });
  return {
    evaluation: {
      name: 'Sample: invoices, receipts and forms',
      json_schema: SAMPLE_SCHEMA,
      documents: files.map((file) => ({ mime_data: { filename: file.filename, url: dataUrl(file) }, annotation: { ...file.spec.truth } })),
      iterations: [iterationOf(baseline), iterationOf(candidate)],
    },
    labels: [
      { name: 'Baseline prompt', description: `The first prompt, on the ${files.length} documents: dates as printed, amounts as read.`, tags: ['sample', 'baseline'] },
      { name: 'Explicit dates and signs', description: 'Asks for ISO dates, signed totals and the employee as bill_to.', tags: ['sample', 'candidate'] },
    ],
  };
}
