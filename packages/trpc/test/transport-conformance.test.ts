import { memoryStorage } from '@docevals/adapters/memory';
import { createDocevals, localRulesExtractor, type Extractor } from '@docevals/core';
import { operations } from '@docevals/core/internal';
import { TRPCClientError } from '@trpc/client';
import { transportConformance, VISION_EXTRACTOR, type Caller, type Outcome, type Transport } from '../../../test-support/transport-conformance/index.js';
import type { DocevalsErrorData } from '../src/index.js';
import { serveRouter } from './serve-router.js';

// The shared cases of issue 29 (test-support/transport-conformance/), each operation called through a typed tRPC
// client over HTTP: the procedure at the row's name, a query or a mutation as the row says.

const KEYS: Record<Caller, string | undefined> = { org_a: 'key_org_a', org_b: 'key_org_b', anonymous: undefined };

transportConformance('tRPC', async (): Promise<Transport> => {
  const docevals = createDocevals({ storage: memoryStorage(), extractors: [localRulesExtractor(), VISION_EXTRACTOR as Extractor] });
  const served = await serveRouter(docevals);
  return {
    async call(operation, input, caller = 'org_a'): Promise<Outcome> {
      const kind = (operations as Record<string, { procedure?: 'query' | 'mutation' }>)[operation]?.procedure;
      if (kind === undefined) throw new Error(`no tRPC procedure for ${operation}`);
      // The typed client is a proxy: walking it by the row's name reaches the procedure.
      const procedure = operation.split('.').reduce<any>((node, key) => node[key], served.client(KEYS[caller]));
      try {
        return { ok: true, data: await procedure[kind === 'query' ? 'query' : 'mutate'](input) };
      } catch (error) {
        if (!(error instanceof TRPCClientError)) throw error;
        const data = error.data as DocevalsErrorData;
        return { ok: false, status: data.httpStatus, code: data.docevalsCode, message: error.message, ...(data.issues ? { issues: data.issues } : {}) };
      }
    },
    async close() {
      await served.close();
      await docevals.close();
    },
  };
});
