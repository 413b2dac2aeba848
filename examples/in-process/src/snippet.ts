// The README's "Use it in-process" snippet, as it is there (a test keeps the two equal): `pnpm example:snippet`.
import { createDocevals } from '@docevals/core';
import { memoryStorage } from '@docevals/adapters/memory';

const docevals = createDocevals({ storage: memoryStorage() }); // extractors default to [localRulesExtractor()]
const org = 'org_1'; // every operation takes the caller's organization first

const evaluation = await docevals.evals.create(org, {
  name: 'Invoices',
  json_schema: { type: 'object', properties: { vendor: { type: 'string' }, total: { type: 'number' } } },
  default_inference_settings: { model: 'local-rules' },
  documents: [{
    mime_data: { filename: 'a.txt', url: 'data:text/plain;base64,VmVuZG9yOiBBQ01FClRvdGFsOiA0Mg==' },
    annotation: { vendor: 'ACME', total: 42 },
  }],
});
const iteration = await docevals.evals.iterations.create(org, { evaluation_id: evaluation.id });
console.log(iteration.metric_results.mean_similarity); // 1
