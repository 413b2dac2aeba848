import { ExtractionFailure, htmlToText, type ExtractionDocument, type InferenceSettings } from '@docevals/core';
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import { extractText } from 'unpdf';
import { renderPdfPages, type RenderedPage } from './render-pages.js';
import { renderTextPages } from './render-text.js';
import { renderedCache } from './rendered-cache.js';

/**
 * Rendered pages as content parts, shared by the n_consensus runs and the retries of a document so that it is
 * rendered once, up to 64 Mi characters of base64 held (least recently used first out).
 */
const renderedParts = renderedCache<ChatCompletionContentPart[]>(64 * 1024 * 1024, (parts) =>
  parts.reduce((sum, part) => sum + (part.type === 'image_url' ? part.image_url.url.length : 0), 0),
);

/** Options of {@link documentContent}. */
export interface DocumentContentOptions {
  /**
   * The most pages rendered to images in `image` / `image+text` modality (a PDF's pages, or the pages a text
   * document fills); more fails without retries. @default 50
   */
  maxPages?: number;
}

/** The default of {@link DocumentContentOptions.maxPages}. */
export const DEFAULT_MAX_PAGES = 50;

const TEXT_TYPES = /^(text\/|application\/(json|xml|xhtml\+xml|csv|ld\+json|x-ndjson|yaml|x-yaml|javascript)$)/i;
const TEXT_EXTENSIONS = /\.(txt|text|md|markdown|csv|tsv|json|html?|xml|ya?ml|log)$/i;

type Kind = 'text' | 'pdf' | 'image' | 'other';

function kindOf(document: ExtractionDocument): Kind {
  const type = document.mime_type.split(';')[0]!.trim().toLowerCase();
  if (type === 'application/pdf' || (type === 'application/octet-stream' && /\.pdf$/i.test(document.filename))) return 'pdf';
  if (type.startsWith('image/')) return 'image';
  if (TEXT_TYPES.test(type)) return 'text';
  if ((type === '' || type === 'application/octet-stream') && TEXT_EXTENSIONS.test(document.filename)) return 'text';
  return 'other';
}

/** The document as a data URL (what `image_url` and `file` parts carry). */
export function dataUrl(document: ExtractionDocument): string {
  const type = document.mime_type.split(';')[0]!.trim() || 'application/octet-stream';
  return `data:${type};base64,${Buffer.from(document.bytes).toString('base64')}`;
}

/** The text of a PDF, pages joined, through unpdf (PDF.js). */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  // PDF.js may transfer (detach) the buffer it is given: hand it a copy, the document's bytes stay usable.
  const { text } = await extractText(new Uint8Array(bytes), { mergePages: true });
  return text;
}

/**
 * The text layer of a PDF for `localRulesExtractor({ textLayer: pdfTextLayer })`: its text through unpdf, null for
 * any other document (images, unknown binaries: nothing to read) and for a PDF without text (a scan).
 *
 * @example
 * createDocevals({ storage, extractors: [localRulesExtractor({ textLayer: pdfTextLayer })] });
 */
export async function pdfTextLayer(document: ExtractionDocument): Promise<string | null> {
  const type = document.mime_type.split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/pdf' && !(/\.pdf$/i.test(document.filename) && (type === '' || type === 'application/octet-stream'))) return null;
  const text = await pdfText(document.bytes);
  return text.trim().length > 0 ? text : null;
}

/**
 * The user message's content parts for a document, by modality:
 * - `text`: the document's text — text files as they are (HTML and JSON included), PDFs through unpdf. An image or
 *   another binary file has no text: a failure that is not retried (choose another modality).
 * - `image`: images as they are (`image_url` data URLs); PDFs rendered locally, page by page, to PNG at
 *   `image_resolution_dpi` (see {@link renderPdfPages}), one `image_url` part per page after a `Page n of N` label;
 *   text files laid out on `browser_canvas` pages (A3, A4, A5) at `image_resolution_dpi` (HTML as its visible
 *   text; see {@link renderTextPages}), sent the same way; as text when the system has no font to draw with.
 * - `native`: images as `image_url` parts and PDFs as `file` parts, both data URLs: the provider reads the file
 *   itself, nothing is rendered locally. Text files as text.
 * - `image+text`: the parts of `image`, plus the text (a PDF's text layer, a text file's text) after them.
 */
export async function documentContent(
  document: ExtractionDocument,
  settings: InferenceSettings,
  options: DocumentContentOptions = {},
): Promise<ChatCompletionContentPart[]> {
  const kind = kindOf(document);
  const header: ChatCompletionContentPart = { type: 'text', text: `Document: ${document.filename}` };
  if (kind === 'text') return [header, ...(await textContent(document, settings, options.maxPages ?? DEFAULT_MAX_PAGES))];
  if (kind === 'other') {
    throw new ExtractionFailure(`cannot send "${document.filename}" (${document.mime_type}): unsupported file type`, {
      retryable: false,
    });
  }
  const modality = settings.modality;
  if (modality === 'text') {
    if (kind === 'image') {
      throw new ExtractionFailure(
        `modality "text" cannot read the image "${document.filename}"; use modality "image", "native" or "image+text"`,
        { retryable: false },
      );
    }
    return [header, { type: 'text', text: await readPdfText(document) }];
  }
  if (kind === 'image') return [header, { type: 'image_url', image_url: { url: dataUrl(document) } }];
  if (modality === 'native') {
    return [header, { type: 'file', file: { filename: document.filename, file_data: dataUrl(document) } }];
  }
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const dpi = settings.image_resolution_dpi;
  const pages = await renderedParts.get(document, `pdf|${dpi}|${maxPages}`, () => renderPdf(document, dpi, maxPages));
  if (modality === 'image+text') {
    return [header, ...pages, { type: 'text', text: `Text layer of the document:\n${await readPdfText(document)}` }];
  }
  return [header, ...pages];
}

/** The PDF's pages as PNG `image_url` parts, each after a text part naming it. */
async function renderPdf(document: ExtractionDocument, dpi: number, maxPages: number): Promise<ChatCompletionContentPart[]> {
  let pages;
  try {
    pages = await renderPdfPages(document.bytes, dpi, maxPages);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ExtractionFailure(`cannot render the PDF "${document.filename}" as images: ${reason}`, {
      retryable: false,
      cause: error,
    });
  }
  return pageParts(pages);
}

/** A text document's parts: its text, or in `image` / `image+text` its rendered pages (then the text, for `image+text`). */
async function textContent(document: ExtractionDocument, settings: InferenceSettings, maxPages: number): Promise<ChatCompletionContentPart[]> {
  const text = decode(document.bytes);
  const asText: ChatCompletionContentPart = { type: 'text', text };
  if (settings.modality !== 'image' && settings.modality !== 'image+text') return [asText];
  const visible = /html/i.test(document.mime_type) || /\.html?$/i.test(document.filename) ? htmlToText(text) : text;
  const { browser_canvas: canvas, image_resolution_dpi: dpi } = settings;
  const pages = await renderedParts.get(document, `text|${canvas}|${dpi}|${maxPages}`, async () => {
    let rendered: RenderedPage[] | null;
    try {
      rendered = await renderTextPages(visible, canvas, dpi, maxPages);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ExtractionFailure(`cannot render "${document.filename}" as images: ${reason}`, { retryable: false, cause: error });
    }
    return rendered === null ? [] : pageParts(rendered);
  });
  if (pages.length === 0) return [asText]; // no font installed: nothing legible to draw, the text itself is sent
  return settings.modality === 'image+text' ? [...pages, asText] : pages;
}

/** Rendered pages as `image_url` PNG parts, each after a `Page n of N` text part. */
function pageParts(pages: RenderedPage[]): ChatCompletionContentPart[] {
  return pages.flatMap((page, i): ChatCompletionContentPart[] => [
    { type: 'text', text: `Page ${i + 1} of ${pages.length}` },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${Buffer.from(page.png).toString('base64')}` } },
  ]);
}

async function readPdfText(document: ExtractionDocument): Promise<string> {
  try {
    return await pdfText(document.bytes);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ExtractionFailure(`cannot read the text of the PDF "${document.filename}": ${reason}`, {
      retryable: false,
      cause: error,
    });
  }
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
}
