import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server received, its JSON body parsed. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
}

/** What to answer: a status (200), a JSON or raw body, after a delay. */
export interface ScriptedReply {
  status?: number;
  /** An object is sent as JSON; a string as it is. */
  body?: unknown;
  delayMs?: number;
  headers?: Record<string, string>;
}

export type Handler = (request: RecordedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>;

/**
 * A loopback HTTP server speaking the OpenAI Chat Completions protocol (`POST /v1/chat/completions`), scriptable
 * per test through `handle`. It records every request and the peak number of requests in flight.
 */
export class FakeOpenAIServer {
  readonly requests: RecordedRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;
  /** The default answers an empty JSON object. */
  handle: Handler = () => ({ body: completion({}) });
  private server: Server | null = null;
  private port = 0;

  get baseURL(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      this.inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      let done = false;
      const finish = () => {
        if (!done) {
          done = true;
          this.inFlight--;
        }
      };
      res.on('close', finish);
      req.on('data', (c: Buffer) => chunks.push(c));
      const respond = async () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text === '' ? undefined : JSON.parse(text);
        } catch {
          // kept as text
        }
        const recorded: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
        const index = this.requests.push(recorded) - 1;
        let reply: ScriptedReply;
        if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
          reply = { status: 404, body: { error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } } };
        } else {
          try {
            reply = await this.handle(recorded, index);
          } catch (error) {
            reply = { status: 500, body: { error: { message: String(error), type: 'server_error' } } };
          }
        }
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        if (res.destroyed || res.writableEnded) return finish();
        const payload = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        res.end(payload);
      };
      // A failure while answering ends the connection rather than leaving a rejection unhandled.
      req.on('end', () => void respond().catch((error: unknown) => res.destroy(error instanceof Error ? error : undefined)));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
    return this;
  }

  /** Forgets the recorded requests and the peak, and restores the default handler. */
  reset(): void {
    this.requests.length = 0;
    this.maxInFlight = this.inFlight;
    this.handle = () => ({ body: completion({}) });
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A Chat Completions response whose message content is `content` (an object is JSON-encoded). */
export function completion(
  content: unknown,
  options: {
    model?: string;
    usage?: { prompt_tokens: number; completion_tokens: number };
    id?: string;
    /** `choices[0].logprobs.content`: the sampled tokens with their log-probabilities. */
    logprobs?: Array<{ token: string; logprob: number; bytes?: number[] | null }>;
  } = {},
): unknown {
  const usage = options.usage ?? { prompt_tokens: 100, completion_tokens: 20 };
  return {
    id: options.id ?? `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: options.model ?? 'gpt-4o-mini',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: typeof content === 'string' ? content : JSON.stringify(content), refusal: null },
        finish_reason: 'stop',
        logprobs: options.logprobs
          ? { content: options.logprobs.map((t) => ({ bytes: null, top_logprobs: [], ...t })), refusal: null }
          : null,
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

/** An OpenAI-style error body. */
export function apiError(status: number, message: string): ScriptedReply {
  return { status, body: { error: { message, type: status === 429 ? 'rate_limit_exceeded' : 'server_error', code: null } } };
}

/**
 * `count` invoice line items for the benchmarks (the fake provider's answer); `variant` 1 gives the ground truth's
 * version of the same items, a few of them different (a word in every fifth description, every seventh quantity).
 */
export function lineItems(count: number, variant: 0 | 1 = 0): Array<{ description: string; quantity: number; unit_price: number; amount: number }> {
  return Array.from({ length: count }, (_, i) => {
    const quantity = (i % 5) + 1 + (variant === 1 && i % 7 === 3 ? 1 : 0);
    const unit_price = Math.round((9.99 + i * 1.25) * 100) / 100;
    const word = variant === 1 && i % 5 === 2 ? 'gadget' : 'widget';
    return { description: `Item ${i + 1} ${word}, blue, size ${(i % 4) + 1}`, quantity, unit_price, amount: Math.round(quantity * unit_price * 100) / 100 };
  });
}
