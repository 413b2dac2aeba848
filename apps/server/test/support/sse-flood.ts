/**
 * The attacker of event-stream-flood.test.ts, in its own process (so its clients do not share the server's event
 * loop): `SUBSCRIBERS` clients subscribe to one running iteration's events, over REST (`GET .../events`) or tRPC
 * (`iterations.events` over SSE), with `KEY`, each on its own connection. They start spread over `RAMP_MS` (1,000
 * connections opened in one tick wait seconds in the kernel and in this process's own loop on a loaded machine,
 * whatever the server). A refused client (429, or tRPC's TOO_MANY_REQUESTS) tries again `RETRY_MS` later (the
 * `Retry-After` of 5 s) while `DURATION_MS` has not passed; past it, once every other request has its answer, the
 * streams still open are closed (they hold their places until then). Prints `flood ready`
 * once the clients are started, and one JSON line (`flood {...}`) when every request has its answer: streams opened,
 * refusals (those of the stream cap apart), other answers, transport errors, events read, answer times (p50, p90,
 * slowest: from sending to the status or, tRPC, the first event or error), the most streams open at once, this
 * process's CPU.
 *
 * Env: URL (the server), KEY, TRANSPORT (rest | trpc), EVALUATION_ID, ITERATION_ID, SUBSCRIBERS (1000),
 * DURATION_MS (6000), RETRY_MS (5000), RAMP_MS (1000).
 */
import { request, type IncomingMessage } from 'node:http';

const env = process.env;
const url = new URL(env.URL!);
const transport = env.TRANSPORT === 'trpc' ? 'trpc' : 'rest';
const ref = { evaluation_id: env.EVALUATION_ID!, iteration_id: env.ITERATION_ID! };
const subscribers = Number(env.SUBSCRIBERS ?? 1000);
const durationMs = Number(env.DURATION_MS ?? 6000);
const retryMs = Number(env.RETRY_MS ?? 5000);
const rampMs = Number(env.RAMP_MS ?? 1000);
const path =
  transport === 'rest'
    ? `/v1/evals/${ref.evaluation_id}/iterations/${ref.iteration_id}/events`
    : `/trpc/evals.iterations.events?input=${encodeURIComponent(JSON.stringify(ref))}`;

const tally = { requests: 0, opened: 0, refused: 0, refusedByStreamCap: 0, other: 0, errors: 0, events: 0, slowestAnswerMs: 0, mostOpen: 0, statuses: {} as Record<string, number>, firstOther: undefined as string | undefined };
let open = 0;
const answers: number[] = [];
const deadline = performance.now() + durationMs;
/** Open streams, and every request not ended yet (the open streams included). */
const streams = new Set<ReturnType<typeof request>>();
const waiting = new Set<ReturnType<typeof request>>();
/**
 * Past the deadline, once every request but the open streams has its answer, the streams are closed: they hold
 * their places until then, so a request still queued is answered as it would be while they are open.
 */
const closeStreamsWhenAnswered = () => {
  // And once the streams have delivered an event (a loaded machine can take seconds to finish the iteration's first
  // document), or 30 s more have passed: the test checks that open streams do deliver.
  const delivered = tally.events > 0 || performance.now() >= deadline + 30_000;
  if (performance.now() >= deadline && delivered && waiting.size === streams.size) for (const req of streams) req.destroy();
};
setTimeout(closeStreamsWhenAnswered, durationMs).unref();
setTimeout(closeStreamsWhenAnswered, durationMs + 30_000).unref();
// A minute later, what still waits for its answer is given up (a transport error in the tally).
setTimeout(() => waiting.forEach((req) => req.destroy()), durationMs + 60_000).unref();

/** One request: resolves when its answer ended (a refusal at once, an open stream when it closes). */
function subscribe(): Promise<void> {
  return new Promise((resolve) => {
    const sent = performance.now();
    tally.requests += 1;
    const req = request({ host: url.hostname, port: url.port, path, agent: false, headers: { 'api-key': env.KEY!, accept: 'text/event-stream' } });
    waiting.add(req);
    let counted = false;
    let ended = false;
    let tallyOpen = false;
    const answered = (what: 'opened' | 'refused' | 'other', status: string) => {
      if (counted) return;
      counted = true;
      tally.slowestAnswerMs = Math.max(tally.slowestAnswerMs, performance.now() - sent);
      answers.push(performance.now() - sent);
      tally[what] += 1;
      tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
      if (what === 'opened') {
        tally.mostOpen = Math.max(tally.mostOpen, ++open);
        streams.add(req);
        closeStreamsWhenAnswered();
      }
    };
    const end = () => {
      if (ended) return;
      ended = true;
      streams.delete(req);
      waiting.delete(req);
      closeStreamsWhenAnswered();
      if (tallyOpen) open -= 1;
      resolve();
    };
    req.on('response', (response: IncomingMessage) => {
      let text = '';
      response.setEncoding('utf8');
      if (transport === 'rest') {
        if (response.statusCode === 200) {
          answered('opened', '200');
          tallyOpen = true;
        } else answered(response.statusCode === 429 ? 'refused' : 'other', String(response.statusCode));
      } else if (response.statusCode !== 200) answered(response.statusCode === 429 ? 'refused' : 'other', String(response.statusCode));
      response.on('data', (chunk: string) => {
        text += chunk;
        const blocks = text.split('\n\n');
        text = blocks.pop()!;
        for (const block of blocks) {
          const event = /^event: (.*)$/m.exec(block)?.[1];
          if (event === 'connected' || event === 'ping' || !/^data: /m.test(block)) continue;
          // tRPC sends `connected` before the procedure runs: a subscription is open at its first event of the iteration.
          if (transport === 'trpc' && event === 'serialized-error' && !counted) {
            if (block.includes('TOO_MANY_REQUESTS')) answered('refused', 'TOO_MANY_REQUESTS');
            if (block.includes('event streams open')) tally.refusedByStreamCap += 1;
            else {
              answered('other', 'serialized-error');
              tally.firstOther ??= block.slice(0, 600);
            }
          } else if (transport === 'trpc' && !counted) {
            answered('opened', 'event');
            tallyOpen = true;
          }
          if (event !== 'serialized-error' && ++tally.events === 1) closeStreamsWhenAnswered();
        }
        // A refused tRPC subscription's stream stays open until its client leaves: leave at once.
        if (transport === 'trpc' && counted && !tallyOpen) req.destroy();
      });
      // A REST refusal's body (no blank line in it: still whole in `text`) says which limit refused it.
      response.on('end', () => {
        if (transport === 'rest' && response.statusCode === 429 && text.includes('event streams open')) tally.refusedByStreamCap += 1;
      });
      response.on('close', end);
      response.on('error', () => undefined);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!counted) {
        counted = true;
        tally.errors += 1;
        const code = `error ${error.code ?? error.message}`;
        tally.statuses[code] = (tally.statuses[code] ?? 0) + 1;
      }
      end();
    });
    req.end();
  });
}

async function client(startMs: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, startMs));
  for (;;) {
    await subscribe();
    if (performance.now() + retryMs >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, retryMs));
  }
}

const clients = Array.from({ length: subscribers }, (_, i) => client((i * rampMs) / subscribers));
console.log('flood ready');
await Promise.all(clients);
answers.sort((x, y) => x - y);
const at = (q: number) => Math.round(answers[Math.ceil(answers.length * q) - 1] ?? 0);
const cpu = process.cpuUsage();
console.log(`flood ${JSON.stringify({ ...tally, answerP50: at(0.5), answerP90: at(0.9), cpuMs: Math.round((cpu.user + cpu.system) / 1000) })}`);
