/**
 * `GET /docs`: the API reference for people, rendered in the browser by Redoc's standalone bundle, which this
 * handler serves itself from the `redoc` package (an optional peer dependency: without it `/docs` answers 404 and
 * says what to install). Nothing comes from a CDN: the page, the bundle and the document are all served here, and
 * the page's Content-Security-Policy lets the browser load nothing from another origin (Redoc's "powered by"
 * image from its CDN included, which is then simply not shown).
 */

/** The file of the renderer, resolved from this package: `redoc`'s self-contained browser bundle. */
const BUNDLE = 'redoc/bundles/redoc.standalone.js';

/** What the browser may load on the page: this origin only (styles inline, Redoc's search worker from a blob). */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self' data:; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

/** The HTML page; `prefix` is where the handler is mounted (`''` or `/api/docevals`). */
export function docsPage(prefix: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>docevals API reference</title>
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<div id="redoc"><p style="font-family: sans-serif; padding: 1em">Loading the API reference… (it needs JavaScript)</p></div>
<script src="${prefix}/docs/redoc.standalone.js"></script>
<script src="${prefix}/docs/init.js"></script>
</body>
</html>
`;
}

/** The script that renders `document` into the page, with Redoc's options for an offline page. */
export function docsInitScript(document: unknown): string {
  const options = { hideDownloadButton: false, expandResponses: '200', jsonSampleExpandLevel: 3, pathInMiddlePanel: true };
  return `Redoc.init(${JSON.stringify(document)}, ${JSON.stringify(options)}, document.getElementById('redoc'));\n`;
}

/**
 * The renderer's bundle, read once from the installed `redoc` package; undefined where it is not installed or the
 * runtime has no file system (a worker): `/docs` then answers 404. `file` names the bundle where a host bundled this
 * package (esbuild) and the package cannot be resolved from it.
 */
export async function loadRendererBundle(file?: string): Promise<string | undefined> {
  try {
    const { createRequire } = await import('node:module');
    const { readFile } = await import('node:fs/promises');
    return await readFile(file ?? createRequire(import.meta.url).resolve(BUNDLE), 'utf8');
  } catch {
    return undefined;
  }
}
