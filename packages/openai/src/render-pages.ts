import { createIsomorphicCanvasFactory, getDocumentProxy } from 'unpdf';

/** One rendered page: a PNG and its size in pixels. */
export interface RenderedPage {
  png: Uint8Array;
  width: number;
  height: number;
}

/** PDF user space is in points: 72 to the inch. */
export const POINTS_PER_INCH = 72;

const canvasImport = () => import('@napi-rs/canvas');

/**
 * PDF.js 5+ draws text through `ArrayBuffer.prototype.transferToFixedLength` (ES2024), which Node 20 lacks: without
 * it every glyph fails and pages come out blank. Installed once, only where missing, with the standard semantics
 * (a copy of the first `length` bytes; the source is detached by a transferring structuredClone).
 */
function ensureTransferToFixedLength(): void {
  const proto = ArrayBuffer.prototype as ArrayBuffer & { transferToFixedLength?: (length?: number) => ArrayBuffer };
  if (typeof proto.transferToFixedLength === 'function') return;
  Object.defineProperty(proto, 'transferToFixedLength', {
    configurable: true,
    writable: true,
    enumerable: false,
    value: function transferToFixedLength(this: ArrayBuffer, length: number = this.byteLength): ArrayBuffer {
      const out = new ArrayBuffer(length);
      new Uint8Array(out).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
      structuredClone(this, { transfer: [this] }); // detach, as the real method does
      return out;
    },
  });
}

/**
 * Renders every page of a PDF to PNG at `dpi` dots per inch, in page order, with unpdf's PDF.js drawing on `@napi-rs/canvas`
 * (Skia, prebuilt binaries). A page of w × h points becomes
 * round(w × dpi / 72) × round(h × dpi / 72) pixels, so a 72 × 72 pt page at 144 dpi is 144 × 144 px. A PDF of more
 * than `maxPages` pages is refused before any page is drawn.
 *
 * @example
 * const pages = await renderPdfPages(bytes, 96);
 * pages[0]; // { png: Uint8Array [137, 80, 78, 71, ...], width: 816, height: 1056 } for a US Letter page
 */
export async function renderPdfPages(bytes: Uint8Array, dpi: number, maxPages = Number.POSITIVE_INFINITY): Promise<RenderedPage[]> {
  if (!Number.isFinite(dpi) || dpi <= 0) throw new RangeError(`dpi must be a positive number, not ${dpi}`);
  ensureTransferToFixedLength();
  const CanvasFactory = await createIsomorphicCanvasFactory(canvasImport);
  // PDF.js may transfer (detach) the buffer it is given: hand it a copy, the document's bytes stay usable.
  const options = { CanvasFactory, isEvalSupported: false, verbosity: 0 } as Parameters<typeof getDocumentProxy>[1];
  const pdf = await getDocumentProxy(new Uint8Array(bytes), options);
  try {
    if (pdf.numPages > maxPages) {
      throw new RangeError(`the PDF has ${pdf.numPages} pages; at most ${maxPages} are rendered as images`);
    }
    const pages: RenderedPage[] = [];
    for (let pageNumber = 1; pageNumber <= pdf.numPages; pageNumber++) {
      const page = await pdf.getPage(pageNumber);
      const viewport = page.getViewport({ scale: dpi / POINTS_PER_INCH });
      const width = Math.max(1, Math.round(viewport.width));
      const height = Math.max(1, Math.round(viewport.height));
      const factory = pdf.canvasFactory as { create(width: number, height: number): unknown };
      const { canvas, context } = factory.create(width, height) as {
        canvas: { encode(format: 'png'): Promise<Uint8Array> } & HTMLCanvasElement;
        context: CanvasRenderingContext2D;
      };
      // White paper under the page: PNGs are transparent by default, and a model sees transparency as black.
      context.fillStyle = '#ffffff';
      context.fillRect(0, 0, width, height);
      await page.render({ canvas, canvasContext: context, viewport }).promise;
      const png = new Uint8Array(await canvas.encode('png'));
      page.cleanup();
      pages.push({ png, ...pngSize(png) });
    }
    return pages;
  } finally {
    await pdf.loadingTask.destroy();
  }
}

/** The pixel size a PNG declares in its IHDR chunk (bytes 16..23, big-endian). */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (png.length < 24 || signature.some((b, i) => png[i] !== b)) throw new Error('not a PNG');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}
