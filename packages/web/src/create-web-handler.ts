import { readFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface WebHandlerOptions {
  /**
   * The folder Vite built the app into (`index.html` and `assets/`). By default `dist/app` of this package, found
   * next to this module (built) or one folder up (run from its sources).
   */
  directory?: string;
  /**
   * Where the host mounts the app: its pages, its assets and the API calls it makes (`${basePath}/trpc`,
   * `${basePath}/v1`) all live under it. Mount REST with the same `basePath` and tRPC at `${basePath}/trpc`.
   * Requests outside it are 404.
   * @default '' (the app at `/`)
   * @example '/evals'
   */
  basePath?: string;
}

/** Content types of what Vite writes; anything else is `application/octet-stream`. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** Vite's hashed files: their name changes with their content, so a browser may keep them for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html names the current hashed files: revalidated on every load. */
const REVALIDATE = 'no-cache';
/**
 * Only this host: scripts and styles from here, documents shown from `blob:` URLs (images, PDF), calls to this
 * origin's `/trpc` and `/v1` (under the base path). `base-uri 'self'`: the page's `<base>` is the handler's.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' blob: data:",
  "frame-src 'self' blob:",
  "object-src 'self' blob:",
  "connect-src 'self'",
  "base-uri 'self'",
  "frame-ancestors 'self'",
].join('; ');

function defaultDirectory(): string {
  const here = import.meta.url;
  const built = fileURLToPath(new URL('./app/', here)); // dist/index.js -> dist/app
  if (existsSync(join(built, 'index.html'))) return built;
  return fileURLToPath(new URL('../dist/app/', here)); // src/create-web-handler.ts -> dist/app
}

/**
 * The docevals web app as a fetch handler (`Request` in, `Response` out): `index.html` for `/` and every app route
 * (the app routes on the client with the history API), the built assets with their content type and a year-long
 * cache (their names carry a hash), 404 for an asset that is not there or a path that leaves the folder (`..`,
 * encoded or not), 405 for a method other than GET and HEAD. Mount it after the API routes: the app calls tRPC at
 * `${basePath}/trpc` and REST at `${basePath}/v1` on the same origin. `index.html` gets a `<base href>` and a
 * `<meta name="docevals-base">` naming `basePath`, from which the app loads its (relative) assets and builds its
 * routes and API URLs.
 *
 * When the app is not built (`pnpm build`, or `pnpm start` which builds it), app routes answer 503 with a page that
 * says so.
 *
 * @example
 * import { createWebHandler } from '@docevals/web';
 * const web = createWebHandler();
 * const handler = (request: Request) => {
 *   const { pathname } = new URL(request.url);
 *   if (pathname.startsWith('/trpc')) return trpc(request);
 *   if (pathname.startsWith('/v1') || pathname.startsWith('/docs') || pathname === '/health') return rest(request);
 *   return web(request);
 * };
 */
export function createWebHandler(options: WebHandlerOptions = {}): (request: Request) => Promise<Response> {
  const root = resolve(options.directory ?? defaultDirectory());
  const basePath = normalizeBasePath(options.basePath);
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return new Response('Method Not Allowed\n', { status: 405, headers: { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' } });
    }
    const head = request.method === 'HEAD';
    const { pathname: fullPath } = new URL(request.url);
    if (basePath !== '' && fullPath !== basePath && !fullPath.startsWith(`${basePath}/`)) return notFound(head);
    const pathname = fullPath.slice(basePath.length) || '/';
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return notFound(head);
    }
    // `..` segments (the URL parser folds plain ones; encoded `%2e%2e`, `%2f` and backslashes arrive here), NUL.
    if (decoded.includes('\0') || decoded.includes('\\') || decoded.split('/').some((segment) => segment === '..')) {
      return notFound(head);
    }
    const isFile = decoded === '/assets' || decoded.startsWith('/assets/') || extname(decoded) !== '';
    if (!isFile) return serveIndex(root, head, basePath);
    const file = resolve(root, `.${decoded}`);
    if (!file.startsWith(root + sep)) return notFound(head);
    try {
      const info = await stat(file);
      if (!info.isFile()) return notFound(head);
      const body = head ? null : await readFile(file);
      return new Response(body, {
        headers: {
          'content-type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
          'content-length': String(info.size),
          'cache-control': decoded.startsWith('/assets/') ? IMMUTABLE : 'public, max-age=3600',
          'x-content-type-options': 'nosniff',
        },
      });
    } catch {
      return notFound(head);
    }
  };
}

/** '' or `/a/b` (no trailing slash); a TypeError for anything that is not a plain path. */
function normalizeBasePath(basePath: string | undefined): string {
  if (basePath === undefined || basePath === '' || basePath === '/') return '';
  if (!/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(basePath) || basePath.split('/').some((segment) => segment === '..' || segment === '.')) {
    throw new TypeError(`createWebHandler: basePath must be a path starting with "/" (received "${basePath}").`);
  }
  return basePath.replace(/\/+$/, '');
}

/** index.html with the base path: `<base href>` for its relative assets, a meta tag for the app's routes and API. */
function withBase(html: string, basePath: string): string {
  const tags = `<base href="${basePath}/"><meta name="docevals-base" content="${basePath}">`;
  const head = /<head[^>]*>/i.exec(html) ?? /^\s*<!doctype[^>]*>/i.exec(html);
  return head ? `${html.slice(0, head.index + head[0].length)}${tags}${html.slice(head.index + head[0].length)}` : `${tags}${html}`;
}

async function serveIndex(root: string, head: boolean, basePath: string): Promise<Response> {
  let html: Buffer;
  try {
    html = Buffer.from(withBase(await readFile(join(root, 'index.html'), 'utf8'), basePath));
  } catch {
    const page =
      '<!doctype html><meta charset="utf-8"><title>docevals</title><h1>The web app is not built</h1>' +
      '<p>Run <code>pnpm build</code> (or <code>pnpm start</code>, which builds it) and reload.</p>\n';
    return new Response(head ? null : page, {
      status: 503,
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
    });
  }
  return new Response(head ? null : new Uint8Array(html), {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-length': String(html.byteLength),
      'cache-control': REVALIDATE,
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    },
  });
}

function notFound(head: boolean): Response {
  return new Response(head ? null : 'Not Found\n', {
    status: 404,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
  });
}
