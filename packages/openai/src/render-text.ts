import type { InferenceSettings } from '@docevals/core';
import { pngSize, POINTS_PER_INCH, type RenderedPage } from './render-pages.js';

type BrowserCanvas = InferenceSettings['browser_canvas'];

/** ISO 216 page sizes in millimetres, portrait (width, height): the meaning of `browser_canvas`. */
export const PAGE_SIZES_MM: Readonly<Record<BrowserCanvas, readonly [number, number]>> = Object.freeze({
  A3: [297, 420],
  A4: [210, 297],
  A5: [148, 210],
});

const MM_PER_INCH = 25.4;
/** Type size of rendered text, in points (scaled with the dpi like the page). */
const FONT_POINTS = 10;
const LINE_SPACING = 1.35;
const MARGIN_MM = 15;
/** Preferred faces, first available wins; any installed family is used when none of these is. */
const PREFERRED_FAMILIES = ['DejaVu Sans Mono', 'Liberation Mono', 'Noto Sans Mono', 'Courier New', 'DejaVu Sans', 'Liberation Sans', 'Noto Sans'];

/**
 * The pixel size of a `browser_canvas` page at `dpi`: round(mm / 25.4 × dpi) per side. A4 at 96 dpi is 794 × 1123 px.
 *
 * @example
 * pagePixels('A4', 96); // { width: 794, height: 1123 }
 */
export function pagePixels(canvas: BrowserCanvas, dpi: number): { width: number; height: number } {
  const [w, h] = PAGE_SIZES_MM[canvas];
  return { width: Math.round((w / MM_PER_INCH) * dpi), height: Math.round((h / MM_PER_INCH) * dpi) };
}

/**
 * Lays a text out on pages of the `browser_canvas` size at `dpi` and renders them to PNG with `@napi-rs/canvas`:
 * black 10 pt type (a monospace face when one is installed) on white, 15 mm margins, lines wrapped at word
 * boundaries (a word wider than the line is cut), tabs as four spaces. Returns null when the system has no font
 * at all (nothing legible could be drawn). More than `maxPages` pages is an error.
 *
 * @example
 * const pages = await renderTextPages('Invoice number: INV-1\nTotal: 42', 'A4', 96);
 * // [{ png: Uint8Array [...], width: 794, height: 1123 }]
 */
export async function renderTextPages(
  text: string,
  canvasSize: BrowserCanvas,
  dpi: number,
  maxPages = Number.POSITIVE_INFINITY,
): Promise<RenderedPage[] | null> {
  if (!Number.isFinite(dpi) || dpi <= 0) throw new RangeError(`dpi must be a positive number, not ${dpi}`);
  const { createCanvas, GlobalFonts } = await import('@napi-rs/canvas');
  const families = GlobalFonts.families.map((f) => f.family);
  const family = PREFERRED_FAMILIES.find((f) => families.includes(f)) ?? families[0];
  if (family === undefined) return null;

  const { width, height } = pagePixels(canvasSize, dpi);
  const scale = dpi / POINTS_PER_INCH;
  const fontPx = FONT_POINTS * scale;
  const lineHeight = fontPx * LINE_SPACING;
  const margin = Math.round((MARGIN_MM / MM_PER_INCH) * dpi);
  const usableWidth = Math.max(1, width - 2 * margin);
  const linesPerPage = Math.max(1, Math.floor((height - 2 * margin) / lineHeight));
  const font = `${fontPx}px "${family}"`;

  const measure = createCanvas(1, 1).getContext('2d');
  measure.font = font;
  const fits = (line: string) => measure.measureText(line).width <= usableWidth;
  const lines = wrap(text, fits);
  const pageCount = Math.max(1, Math.ceil(lines.length / linesPerPage));
  if (pageCount > maxPages) throw new RangeError(`the text fills ${pageCount} ${canvasSize} pages; at most ${maxPages} are rendered as images`);

  const pages: RenderedPage[] = [];
  for (let p = 0; p < pageCount; p++) {
    const canvas = createCanvas(width, height);
    const context = canvas.getContext('2d');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    context.fillStyle = '#000000';
    context.font = font;
    context.textBaseline = 'top';
    lines.slice(p * linesPerPage, (p + 1) * linesPerPage).forEach((line, i) => {
      context.fillText(line, margin, margin + i * lineHeight);
    });
    const png = new Uint8Array(await canvas.encode('png'));
    pages.push({ png, ...pngSize(png) });
  }
  return pages;
}

/** The text's lines, each wrapped to what `fits`: at spaces when possible, else cut inside the word. */
function wrap(text: string, fits: (line: string) => boolean): string[] {
  const out: string[] = [];
  for (const raw of text.replace(/\r\n?/g, '\n').replace(/\t/g, '    ').split('\n')) {
    let rest = raw.trimEnd();
    if (rest === '') {
      out.push('');
      continue;
    }
    while (rest !== '') {
      if (fits(rest)) {
        out.push(rest);
        break;
      }
      // The longest prefix that fits (binary search over code points), then back off to the last space in it.
      const chars = Array.from(rest);
      let lo = 1;
      let hi = chars.length;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (fits(chars.slice(0, mid).join(''))) lo = mid;
        else hi = mid - 1;
      }
      let cut = lo;
      const space = chars.slice(0, lo + 1).lastIndexOf(' ');
      if (space > 0) cut = space;
      out.push(chars.slice(0, cut).join('').trimEnd());
      rest = chars.slice(cut).join('').trimStart();
    }
  }
  return out;
}
