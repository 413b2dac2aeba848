import { ExtractionFailure, type ExtractionDocument, type InferenceSettings } from '@docevals/core';
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import { extractText } from 'unpdf';
import { renderPdfPages } from './render-pages.js';

/** Options of {@link documentContent}. */
export interface DocumentContentOptions {
  /** A PDF with more pages than this fails (not retried) in `image` / `image+text` modality. @default 50 */
  maxPdfPages?: number;
}

/** The default of {@link DocumentContentOptions.maxPdfPages}. */
export const DEFAULT_MAX_PDF_PAGES = 50;

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
 * The user message's content parts for a document, by modality:
 * - `text`: the document's text — text files as they are (HTML and JSON included), PDFs through unpdf. An image or
 *   another binary file has no text: a failure that is not retried (choose another modality).
 * - `image`: images as they are (`image_url` data URLs); PDFs rendered locally, page by page, to PNG at
 *   `image_resolution_dpi` (see {@link renderPdfPages}), one `image_url` part per page after a `Page n of N` label.
 * - `native`: images as `image_url` parts and PDFs as `file` parts, both data URLs: the provider reads the file
 *   itself, nothing is rendered locally.
 * - `image+text`: the parts of `image`, plus the PDF's text layer beside them.
 * Text files are sent as text in every modality.
 */
export async function documentContent(
  document: ExtractionDocument,
  settings: InferenceSettings,
  options: DocumentContentOptions = {},
): Promise<ChatCompletionContentPart[]> {
  const kind = kindOf(document);
  const header: ChatCompletionContentPart = { type: 'text', text: `Document: ${document.filename}` };
  if (kind === 'text') return [header, { type: 'text', text: decode(document.bytes) }];
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
  const pages = await renderPdf(document, settings.image_resolution_dpi, options.maxPdfPages ?? DEFAULT_MAX_PDF_PAGES);
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
