// The loopback server of the throughput benchmark in its own process, so that serving does not compete with the
// runner for one event loop. Forked by iteration-throughput.bench.ts; sends its base URL over IPC.
import { completion, FakeOpenAIServer } from '../../../test-support/fake-openai-server.js';

const delayMs = Number(process.argv[2] ?? 20);
const server = await new FakeOpenAIServer().start();
server.handle = () => ({ body: completion({ invoice_number: 'INV-1', total: 12.5 }), delayMs });
process.on('message', (message: { type: string }) => {
  if (message.type === 'stats') {
    process.send!({ type: 'stats', maxInFlight: server.maxInFlight, requests: server.requests.length });
  } else if (message.type === 'reset') {
    server.reset();
    server.handle = () => ({ body: completion({ invoice_number: 'INV-1', total: 12.5 }), delayMs });
    process.send!({ type: 'reset' });
  } else if (message.type === 'stop') {
    void server.stop().then(() => process.exit(0));
  }
});
process.send!({ type: 'ready', baseURL: server.baseURL });
