import { expect } from 'vitest';
import type { Outcome } from './transport.js';

/** The data of a call that must have succeeded (the test fails with the error otherwise). */
export async function data(call: Promise<Outcome>): Promise<any> {
  const outcome = await call;
  if (!outcome.ok) expect.fail(`expected success, got ${outcome.status} ${outcome.code}: ${outcome.message}`);
  return outcome.data;
}

/** The error of a call that must have failed. */
export async function failure(call: Promise<Outcome>): Promise<Extract<Outcome, { ok: false }>> {
  const outcome = await call;
  if (outcome.ok) expect.fail(`expected an error, got ${JSON.stringify(outcome.data).slice(0, 200)}`);
  return outcome;
}

export const dataUrl = (text: string, type = 'text/plain') => `data:${type};base64,${Buffer.from(text).toString('base64')}`;
