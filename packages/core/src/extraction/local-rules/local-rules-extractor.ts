import { ExtractionFailure, type ExtractionDocument, type Extractor, type ExtractionOutput } from '../../extractor.js';
import type { JsonObject, JsonValue } from '../../json/assert-json.js';
import { emptyObject } from './fill-fields.js';
import { fillFromJson } from './fill-from-json.js';
import { fillFromText } from './fill-from-text.js';
import { readSchemaFields, type ObjectNode } from './schema-fields.js';
import { decodeText, htmlToText, isCsv, isHtml, isTextDocument, readLayout } from './text-layout.js';

/** The model name the embedded extractor serves. */
export const LOCAL_RULES_MODEL = 'local-rules';

export interface LocalRulesExtractorOptions {
  /**
   * Model names (or patterns) this extractor answers to.
   * @default ['local-rules']
   */
  models?: Array<string | RegExp>;
  /**
   * Reads the text layer of a document that is not text (a PDF): its text, or null when it has none to offer. The
   * core reads no file format itself; `@docevals/openai` gives `pdfTextLayer` (unpdf), which the standalone server
   * plugs in. A hook that throws makes the document unreadable: the call fails (not retried).
   * @default none: such documents give every field null
   */
  textLayer?: (document: ExtractionDocument) => Promise<string | null>;
}

/**
 * The embedded, offline, deterministic extractor (model `local-rules`, no key, no network). It reads text
 * documents (text/*, JSON, CSV, Markdown, HTML as text) and fills each schema field from a label that names it
 * (its property name, `title` or `description`, compared without case and separators): "Label: value" lines (also
 * `=`, ` - `, tabs, aligned columns), sections headed by a nested object's label, tables (CSV, Markdown, aligned)
 * for arrays of objects, and the keys of JSON documents. Values are converted to the field's type (numbers in
 * `1,234.56` / `1.234,56` / `(12.00)` forms, integers, yes/no booleans, dates to `YYYY-MM-DD` for `format: date`,
 * enums without case). Other document types are read through `textLayer` when given (PDF text layers), else give
 * every field null.
 *
 * What it writes for a field it did not find (it never guesses): null when the schema allows null or the field is
 * required, nothing when the field is optional and not nullable. It never fails a readable document: when a
 * required, non-nullable field is missing, the output (what was found) does not match the schema and the service
 * keeps it as a malformed prediction (`schema_valid: false`, scored field by field; docs/spec/metrics.md section 5).
 *
 * @example
 * const runner = createExtractionRunner({ extractors: [localRulesExtractor()] });
 */
export function localRulesExtractor(options: LocalRulesExtractorOptions = {}): Extractor {
  const models = options.models ?? [LOCAL_RULES_MODEL];
  return {
    name: 'local-rules',
    models,
    // Text documents only (text/*, JSON, CSV, Markdown, HTML); other files give nulls.
    modalities: ['text'],
    async extract(request): Promise<ExtractionOutput> {
      request.signal.throwIfAborted();
      const fields = readSchemaFields(request.json_schema);
      const layer = fields.kind === 'object' ? await readTextLayer(options, request.document) : null;
      request.signal.throwIfAborted();
      const data = fields.kind === 'object' ? extractData(fields, request.document, layer) : {};
      // Running locally costs nothing: a known price of zero, not an unknown one.
      return { data, api_cost: { value: 0, currency: 'USD' }, likelihoods: null };
    },
  };
}

/** The text layer of a document that is not text, through the hook; null without one. */
async function readTextLayer(options: LocalRulesExtractorOptions, document: ExtractionDocument): Promise<string | null> {
  if (!options.textLayer || isTextDocument(document.mime_type, document.filename)) return null;
  try {
    return await options.textLayer(document);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ExtractionFailure(`local-rules cannot read the text of "${document.filename}": ${reason}`, { retryable: false });
  }
}

function extractData(fields: ObjectNode, document: { filename: string; mime_type: string; bytes: Uint8Array }, layer: string | null): JsonObject {
  if (layer !== null) return fillFromText(fields, readLayout(layer, { csv: false }));
  if (!isTextDocument(document.mime_type, document.filename)) return emptyObject(fields);
  let text = decodeText(document.bytes);
  const json = parseJson(text);
  if (json !== undefined) return fillFromJson(fields, json);
  if (isHtml(document.mime_type, document.filename)) text = htmlToText(text);
  return fillFromText(fields, readLayout(text, { csv: isCsv(document.mime_type, document.filename) }));
}

/** The document as JSON when it is an object or array of JSON, whatever its MIME type says. */
function parseJson(text: string): JsonValue | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return JSON.parse(trimmed) as JsonValue;
  } catch {
    return undefined;
  }
}
