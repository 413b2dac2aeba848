import { afterAll, beforeAll, describe } from 'vitest';
import { analysesCases } from './analyses.js';
import { modelsAndDuplicateCases } from './models-duplicate.js';
import { pagedReadsCases } from './paged-reads.js';
import { eventStreamCases } from './event-streams.js';
import { slowBodyCases } from './slow-bodies.js';
import type { MakeTransport, Transport } from './transport.js';

export {
  CONFORMANCE_BODY_TIMEOUT_MS,
  CONFORMANCE_EVENT_STREAMS,
  VISION_EXTRACTOR,
  type Caller,
  type IterationRef,
  type MakeTransport,
  type Outcome,
  type Subscription,
  type Transport,
} from './transport.js';

/**
 * The cases every transport of the API passes, through its own client (issue 29): `name` names the transport in
 * the test titles, `makeTransport` serves a fresh service for the suite. Add a case to the area's file of this
 * folder (or a new area here): it then runs for REST and tRPC both.
 */
export function transportConformance(name: string, makeTransport: MakeTransport): void {
  describe(`transport conformance: ${name}`, () => {
    let transport: Transport | undefined;
    beforeAll(async () => {
      transport = await makeTransport();
    });
    afterAll(() => transport?.close());
    const get = () => transport!;
    modelsAndDuplicateCases(get);
    analysesCases(get);
    pagedReadsCases(get);
    eventStreamCases(get);
    slowBodyCases(get);
  });
}
