import { invoiceDocuments, invoiceModel, SCHEMA } from './jobs-support.js';
import { apiClient } from './api-client.js';

/**
 * A loopback model that holds every call until `release()`: an iteration started on it stays `running`, so its event
 * streams stay open (each waits for the next event).
 */
export async function heldModel() {
  const model = await invoiceModel(1);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const handle = model.fake.handle;
  model.fake.handle = async (request, index) => {
    await gate;
    return handle(request, index);
  };
  return { baseURL: model.fake.baseURL, release, stop: () => (release(), model.fake.stop()) };
}

/** An evaluation of `documents` invoices for `key` with one background iteration started: its ids and events path. */
export async function runningIteration(url: string, key: string, documents = 1) {
  const api = apiClient(url, key);
  const evaluation = await api('POST', '/v1/evals', {
    name: 'streams',
    json_schema: SCHEMA,
    documents: invoiceDocuments(documents),
    default_inference_settings: { model: 'gpt-4o-mini' },
  });
  if (evaluation.status >= 300) throw new Error(`evals.create answered ${evaluation.status}: ${evaluation.text}`);
  const iteration = await api('POST', `/v1/evals/${evaluation.body.id}/iterations/create`, { background: true });
  if (iteration.status !== 202) throw new Error(`iterations.create answered ${iteration.status}: ${iteration.text}`);
  const ref = { evaluation_id: evaluation.body.id as string, iteration_id: iteration.body.id as string };
  return { ...ref, eventsPath: `/v1/evals/${ref.evaluation_id}/iterations/${ref.iteration_id}/events` };
}
