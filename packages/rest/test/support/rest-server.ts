import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiKeyAuthenticator, createDocevals, type Docevals, type DocevalsOptions } from '@docevals/core';
import { memoryStorage } from '@docevals/adapters/memory';
import { createRestHandler, type RestHandlerOptions } from '@docevals/rest';
import { toNodeHandler } from '@docevals/rest/node';

export const KEY_A = 'key_org_a_0123456789';
export const KEY_B = 'key_org_b_9876543210';
export const ORG_A = 'org_a';
export const ORG_B = 'org_b';

export interface RestServer {
  /** `http://127.0.0.1:<port><basePath>` */
  url: string;
  docevals: Docevals;
  server: Server;
  /** Errors handed to `onError` (the 5xx ones). */
  unexpected: unknown[];
  /** A JSON call with org A's key unless `key` says otherwise (`null`: no key). */
  call(method: string, path: string, init?: CallInit): Promise<{ status: number; headers: Headers; body: any }>;
  close(): Promise<void>;
}

export interface CallInit {
  key?: string | null;
  body?: unknown;
  /** Sent as is, instead of `JSON.stringify(body)`. */
  raw?: BodyInit;
  headers?: Record<string, string>;
}

/** The real service over memory storage, behind `createRestHandler` and `toNodeHandler`, on 127.0.0.1:0. */
export async function startRestServer(
  options: {
    basePath?: string;
    limits?: RestHandlerOptions['limits'];
    docevals?: Partial<DocevalsOptions>;
    /** The host's authentication (default: org A's and org B's API keys). */
    authenticate?: RestHandlerOptions['authenticate'];
  } = {},
): Promise<RestServer> {
  const docevals = createDocevals({ storage: memoryStorage(), ...options.docevals });
  const unexpected: unknown[] = [];
  const handler = createRestHandler({
    docevals,
    authenticate: options.authenticate ?? apiKeyAuthenticator({ keys: { [KEY_A]: ORG_A, [KEY_B]: ORG_B } }),
    basePath: options.basePath,
    limits: options.limits,
    onError: (error) => unexpected.push(error),
  });
  const server = createServer(toNodeHandler(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}${options.basePath ?? ''}`;

  return {
    url,
    docevals,
    server,
    unexpected,
    async call(method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      const key = init.key === undefined ? KEY_A : init.key;
      if (key !== null) headers['api-key'] ??= key;
      let body: BodyInit | undefined = init.raw;
      if (body === undefined && init.body !== undefined) {
        body = JSON.stringify(init.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${url}${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? null : JSON.parse(text);
      } catch {
        // not JSON: the test sees the text
      }
      return { status: response.status, headers: response.headers, body: parsed as any };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await docevals.close();
    },
  };
}

/** Everything org `organizationId` has stored, read in-process: to prove a refused request changed nothing. */
export async function storedState(docevals: Docevals, organizationId: string) {
  const evals = await docevals.evals.list(organizationId, { limit: 100 });
  const processors = await docevals.processors.list(organizationId, { limit: 100 });
  return { evals: evals.data, processors: processors.data };
}
