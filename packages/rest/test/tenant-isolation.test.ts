import { describe, expect, it } from 'vitest';
import { KEY_B, ORG_A, ORG_B, storedState } from './support/rest-server.js';
import { requestsFor, seededServer } from './support/seed.js';

const served = seededServer();

describe('tenant isolation', () => {
  it("answers 404 to organization B on every route that names one of A's objects, and changes nothing of A's", async () => {
    const before = await storedState(served.api.docevals, ORG_A);
    const targeted = requestsFor(served.ids).filter(({ path }) => /\/(eval_|proc_)/.test(path));
    expect(targeted.length).toBe(17);
    for (const { method, path, body } of targeted) {
      const r = await served.api.call(method, path, { key: KEY_B, body });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.error.code).toBe('not_found');
      expect(JSON.stringify(r.body)).not.toContain(ORG_A);
    }
    expect(await storedState(served.api.docevals, ORG_A)).toEqual(before);
    expect(await storedState(served.api.docevals, ORG_B)).toEqual({ evals: [], processors: [] });
  });

  it("answers 404 exactly as for an id that exists nowhere", async () => {
    const theirs = await served.api.call('GET', `/v1/evals/${served.ids.evaluationId}`, { key: KEY_B });
    const nobodys = await served.api.call('GET', '/v1/evals/eval_nobody', { key: KEY_B });
    expect(theirs.status).toBe(nobodys.status);
    expect(theirs.body.error.message.replace(served.ids.evaluationId, 'ID')).toBe(nobodys.body.error.message.replace('eval_nobody', 'ID'));
  });

  it("leaves A's objects out of B's lists, and B's out of A's", async () => {
    const created = await served.api.call('POST', '/v1/processors', {
      key: KEY_B,
      body: { name: 'B', model: 'local-rules', json_schema: { type: 'object' } },
    });
    expect(created.body.organization_id).toBe(ORG_B);
    const listB = await served.api.call('GET', '/v1/processors', { key: KEY_B });
    expect(listB.body.data.map((p: { id: string }) => p.id)).toEqual([created.body.id]);
    expect((await served.api.call('GET', '/v1/evals', { key: KEY_B })).body.data).toEqual([]);
    const listA = await served.api.call('GET', '/v1/processors');
    expect(listA.body.data.map((p: { id: string }) => p.id)).toEqual([served.ids.processorId]);
  });

  it('lets B choose an id A already uses, without touching A', async () => {
    const r = await served.api.call('POST', '/v1/processors', {
      key: KEY_B,
      body: { id: served.ids.processorId, name: 'Same id', model: 'local-rules', json_schema: { type: 'object' } },
    });
    expect(r.status).toBe(200); // served.ids are unique per organization (docs/spec/service.md)
    expect(r.body).toMatchObject({ id: served.ids.processorId, organization_id: ORG_B });
    expect((await served.api.call('GET', `/v1/processors/${served.ids.processorId}`)).body.name).toBe('Invoice reader');
  });
});
