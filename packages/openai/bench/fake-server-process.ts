// The loopback server of the throughput benchmarks in its own process, so that serving does not compete with the
// runner for one event loop (and its CPU can be read apart from the process under test). Forked by
// iteration-throughput.bench.ts and others; sends its base URL over IPC. Its stats also give when the first call
// since the last reset started and when the last one answered (ms since the epoch, performance's clock).
import { completion, FakeOpenAIServer, lineItems } from '../../../test-support/fake-openai-server.js';

const delayMs = Number(process.argv[2] ?? 20);
// Spread: each answer comes after delayMs + a uniform draw in [-jitterMs, +jitterMs] (the mean stays delayMs).
const jitterMs = Number(process.argv[3] ?? 0);
// Line items in each answer (an invoice's `items`, as `lineItems` of the bench that forked it makes them): 0 for none.
const itemCount = Number(process.argv[4] ?? 0);
const content = { invoice_number: 'INV-1', total: 12.5, ...(itemCount > 0 ? { items: lineItems(itemCount) } : {}) };
const server = await new FakeOpenAIServer().start();
const now = () => performance.timeOrigin + performance.now();
let calls = { first: Infinity, last: 0 };
const answer = async () => {
  calls.first = Math.min(calls.first, now());
  if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs + (Math.random() * 2 - 1) * jitterMs));
  calls.last = Math.max(calls.last, now());
  return { body: completion(content) };
};
server.handle = answer;
process.on('message', (message: { type: string }) => {
  if (message.type === 'stats') {
    process.send!({ type: 'stats', maxInFlight: server.maxInFlight, requests: server.requests.length, firstCall: calls.first, lastCall: calls.last });
  } else if (message.type === 'reset') {
    server.reset();
    server.handle = answer;
    calls = { first: Infinity, last: 0 };
    process.send!({ type: 'reset' });
  } else if (message.type === 'stop') {
    void server.stop().then(() => process.exit(0));
  }
});
process.send!({ type: 'ready', baseURL: server.baseURL });
