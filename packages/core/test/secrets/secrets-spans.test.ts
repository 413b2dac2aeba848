import { ProxyTracerProvider, trace, type Tracer } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aesGcmCipher, createDocevals, generateMasterKey, parseMasterKey } from '../../src/internal.js';
import { memoryStorage } from '../support/memory-storage.js';

/** The names of the spans started in this process, in order (spans themselves are the API's no-op spans). */
const started: string[] = [];

beforeAll(() => {
  const noop = new ProxyTracerProvider().getTracer('noop');
  const recording = {
    startSpan: (name: string, ...rest: unknown[]) => {
      started.push(name);
      return (noop.startSpan as (...args: unknown[]) => ReturnType<Tracer['startSpan']>)(name, ...rest);
    },
    startActiveSpan: (name: string, ...rest: unknown[]) => {
      started.push(name);
      return (noop.startActiveSpan as (...args: unknown[]) => unknown)(name, ...rest);
    },
  } as Tracer;
  trace.setGlobalTracerProvider({ getTracer: () => recording });
});
afterAll(() => trace.disable());

describe('secrets operations', () => {
  it('run in an operation span named as their row, their storage calls traced as every other operation', async () => {
    const docevals = createDocevals({ storage: memoryStorage(), secrets: { cipher: await aesGcmCipher([parseMasterKey(generateMasterKey())]) } });
    started.length = 0;
    await docevals.secrets.externalApiKeys.create('org_1', { provider: 'OpenAI', api_key: 'sk-test-1' });
    await docevals.secrets.customEndpoint.get('org_1');
    expect(started[0]).toBe('docevals secrets.externalApiKeys.create');
    // The secret's record is read and written through the traced store (the `jobs` collection holds it).
    expect(started.slice(1).some((name) => name.includes('jobs'))).toBe(true);
    expect(started).toContain('docevals secrets.customEndpoint.get');
  });
});
