import { describe, expect, it } from 'vitest';
import { createInvoices, invoiceDocument, makeService, ORG, OTHER_ORG } from './fixtures.js';

// Experiments have names (issue 28), added as one row of the operations table (issue 29's example operation).
describe('iteration labels: name, description, tags', () => {
  async function setup() {
    const docevals = makeService();
    const evaluation = await createInvoices(docevals, {
      documents: [invoiceDocument('a.json', { vendor: 'Acme', total: 1 }, { vendor: 'Acme', total: 1 })],
    });
    return { docevals, evaluation_id: evaluation.id };
  }

  it('takes labels at create, answers them in the summary and the whole iteration, and none means null / []', async () => {
    const { docevals, evaluation_id } = await setup();
    const named = await docevals.evals.iterations.create(ORG, { evaluation_id, name: ' Baseline ', description: 'first try', tags: ['v1'] });
    expect(named).toMatchObject({ name: 'Baseline', description: 'first try', tags: ['v1'] });
    const plain = await docevals.evals.iterations.create(ORG, { evaluation_id });
    expect(plain).toMatchObject({ name: null, description: null, tags: [] });
    const { data } = await docevals.evals.iterations.list(ORG, { evaluation_id, view: 'summary' });
    expect(data.map((it) => it.name)).toEqual(['Baseline', null]);
  });

  it('changes only the labels given, clears with null and [], and re-runs nothing', async () => {
    const { docevals, evaluation_id } = await setup();
    const iteration = await docevals.evals.iterations.create(ORG, { evaluation_id, name: 'A', tags: ['x', 'y'] });
    const renamed = await docevals.evals.iterations.updateMetadata(ORG, { evaluation_id, iteration_id: iteration.id, name: 'B' });
    expect(renamed).toMatchObject({ name: 'B', description: null, tags: ['x', 'y'], status: 'completed' });
    // Same run: the predictions and the finish time are the ones of the first run.
    expect(renamed.finished_at).toBe(iteration.finished_at);
    const cleared = await docevals.evals.iterations.updateMetadata(ORG, { evaluation_id, iteration_id: iteration.id, name: null, tags: [] });
    expect(cleared).toMatchObject({ name: null, tags: [] });
    const whole = await docevals.evals.iterations.get(ORG, { evaluation_id, iteration_id: iteration.id });
    expect(whole.predictions).toEqual(iteration.predictions);
  });

  it('refuses bad labels with their paths and changes nothing; another organization gets a 404', async () => {
    const { docevals, evaluation_id } = await setup();
    const iteration = await docevals.evals.iterations.create(ORG, { evaluation_id, name: 'A' });
    const ref = { evaluation_id, iteration_id: iteration.id };
    const refused = await docevals.evals.iterations.updateMetadata(ORG, { ...ref, name: '   ', tags: ['t', 't'] }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'validation_error' });
    expect((refused as { issues: Array<{ path: string }> }).issues.map((i) => i.path).sort()).toEqual(['name', 'tags']);
    await expect(docevals.evals.iterations.updateMetadata(OTHER_ORG, { ...ref, name: 'stolen' })).rejects.toMatchObject({ code: 'not_found' });
    expect((await docevals.evals.iterations.get(ORG, { ...ref, view: 'summary' })).name).toBe('A');
  });
});
