import { ExtractionFailure, type Extractor, type ExtractionOutput } from '../../extractor.js';
import { compileJsonSchema, describeSchemaErrors } from '../../json-schema/compile.js';
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
}

/**
 * The embedded, offline, deterministic extractor (model `local-rules`, no key, no network). It reads text
 * documents (text/*, JSON, CSV, Markdown, HTML as text) and fills each schema field from a label that names it
 * (its property name, `title` or `description`, compared without case and separators): "Label: value" lines (also
 * `=`, ` - `, tabs, aligned columns), sections headed by a nested object's label, tables (CSV, Markdown, aligned)
 * for arrays of objects, and the keys of JSON documents. Values are converted to the field's type (numbers in
 * `1,234.56` / `1.234,56` / `(12.00)` forms, integers, yes/no booleans, dates to `YYYY-MM-DD` for `format: date`,
 * enums without case). Other document types give every field null.
 *
 * What it writes for a field it did not find (it never guesses): null when the schema allows null or the field is
 * required, nothing when the field is optional and not nullable. So its output conforms whenever the schema lets a
 * missing value be null or absent; when a required, non-nullable field is missing, the call fails (not retryable:
 * the same document gives the same output) with the schema's message, and the runner records that as the reason.
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
      const data = fields.kind === 'object' ? extractData(fields, request.document) : {};
      const validate = compileJsonSchema(request.json_schema);
      if (!validate(data)) {
        throw new ExtractionFailure(
          `local-rules could not fill the schema from "${request.document.filename}": ${describeSchemaErrors(validate.errors)}`,
          { retryable: false },
        );
      }
      // Running locally costs nothing: a known price of zero, not an unknown one.
      return { data, api_cost: { value: 0, currency: 'USD' }, likelihoods: null };
    },
  };
}

function extractData(fields: ObjectNode, document: { filename: string; mime_type: string; bytes: Uint8Array }): JsonObject {
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
