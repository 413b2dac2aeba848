import fc from 'fast-check';

/** Catastrophic, invalid and odd patterns next to random ones: RE2 runs or refuses them all in bounded time. */
const PATTERNS = ['^(a+)+$', '(a|a)*$', '(?=a)', '(a)\\1', '[', '\\', '^.*$', '(?<name>x)', '\\p{L}+', 'a{1000}{1000}'];

/** One level of a JSON-Schema-like object whose sub-schemas come from `child`. */
function schemaLevel(child: fc.Arbitrary<unknown>): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      type: fc.oneof(fc.constantFrom('object', 'string', 'number', 'integer', 'array', 'boolean', 'null'), fc.jsonValue({ maxDepth: 1 })),
      properties: fc.dictionary(
        fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('toString', 'constructor', '__proto__', 'hasOwnProperty')),
        child,
        { maxKeys: 3 },
      ),
      items: child,
      required: fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('toString', '__proto__')), { maxLength: 3 }),
      pattern: fc.oneof(fc.constantFrom(...PATTERNS), fc.string({ maxLength: 12 })),
      patternProperties: fc.dictionary(fc.oneof(fc.constantFrom(...PATTERNS), fc.string({ maxLength: 6 })), child, { maxKeys: 2 }),
      format: fc.oneof(fc.constantFrom('regex', 'date', 'email', 'uri', 'date-time'), fc.string({ maxLength: 6 })),
      $id: fc.oneof(fc.constantFrom('https://fuzz.example/a.json', 'urn:x', '#a'), fc.string({ maxLength: 10 })),
      $ref: fc.oneof(fc.constantFrom('#', '#/properties/a', 'https://fuzz.example/a.json', '#/$defs/x'), fc.string({ maxLength: 10 })),
      $defs: fc.dictionary(fc.string({ maxLength: 4 }), child, { maxKeys: 2 }),
      enum: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
      anyOf: fc.array(child, { maxLength: 2 }),
      minLength: fc.oneof(fc.integer(), fc.jsonValue({ maxDepth: 0 })),
      description: fc.string({ maxLength: 20 }),
    },
    { requiredKeys: [] },
  );
}

/** JSON-Schema-like objects three levels deep: the keywords docevals and Ajv care about, with hostile values. */
export const schemaArbitrary = schemaLevel(schemaLevel(schemaLevel(fc.jsonValue({ maxDepth: 1 }))));

/** Annotations and predictions: random JSON objects, nested arrays included. */
export const annotationArbitrary = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 5 });

const dataUrl = fc
  .tuple(fc.constantFrom('text/plain', 'application/pdf', 'image/png', 'text/csv', 'x/y', ''), fc.uint8Array({ maxLength: 64 }))
  .map(([type, bytes]) => `data:${type};base64,${Buffer.from(bytes).toString('base64')}`);

const documentArbitrary = fc.record(
  {
    id: fc.string({ maxLength: 10 }),
    mime_data: fc.record(
      { filename: fc.string({ maxLength: 12 }), url: fc.oneof(dataUrl, fc.string({ maxLength: 20 })), file_id: fc.string({ maxLength: 8 }) },
      { requiredKeys: [] },
    ),
    annotation: fc.oneof(annotationArbitrary, fc.jsonValue({ maxDepth: 2 })),
    annotation_metadata: fc.oneof(fc.constant(null), annotationArbitrary),
  },
  { requiredKeys: [] },
);

const settingsArbitrary = fc.record(
  {
    model: fc.oneof(fc.constant('local-rules'), fc.string({ maxLength: 8 })),
    temperature: fc.oneof(fc.double(), fc.integer()),
    modality: fc.oneof(fc.constantFrom('text', 'native', 'image'), fc.string({ maxLength: 5 })),
    n_consensus: fc.oneof(fc.integer({ min: -2, max: 20 }), fc.string({ maxLength: 3 })),
    reasoning_effort: fc.oneof(fc.constantFrom('low', 'high', null), fc.string({ maxLength: 4 })),
  },
  { requiredKeys: [] },
);

/** Bodies shaped like the API's (every field optional and randomly typed) next to any JSON at all. */
export const bodyArbitrary: fc.Arbitrary<unknown> = fc.oneof(
  fc.record(
    {
      id: fc.string({ maxLength: 12 }),
      name: fc.oneof(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 1 })),
      model: fc.oneof(fc.constant('local-rules'), fc.string({ maxLength: 8 })),
      json_schema: fc.oneof(schemaArbitrary, fc.jsonValue({ maxDepth: 2 })),
      documents: fc.array(documentArbitrary, { maxLength: 3 }),
      document: documentArbitrary.map((d) => d.mime_data),
      iterations: fc.array(
        fc.record(
          {
            inference_settings: settingsArbitrary,
            predictions: fc.array(fc.record({ document_id: fc.string({ maxLength: 6 }), prediction: annotationArbitrary }, { requiredKeys: [] }), { maxLength: 3 }),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 2 },
      ),
      annotation: annotationArbitrary,
      annotation_metadata: fc.oneof(fc.constant(null), annotationArbitrary),
      mime_data: documentArbitrary.map((d) => d.mime_data),
      inference_settings: settingsArbitrary,
      default_inference_settings: settingsArbitrary,
      document_ids: fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
      only_missing: fc.jsonValue({ maxDepth: 0 }),
      temperature: fc.jsonValue({ maxDepth: 0 }),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Raw bytes a client might send as a JSON body: broken JSON, invalid UTF-8, deep nesting. */
export const rawBodyArbitrary: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 64 }),
  fc.string({ maxLength: 64 }).map((s) => new TextEncoder().encode(s)),
  fc.integer({ min: 1, max: 5_000 }).map((n) => new TextEncoder().encode('['.repeat(n) + ']'.repeat(n))),
  fc.integer({ min: 1, max: 5_000 }).map((n) => new TextEncoder().encode(`{"name":"x","json_schema":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`)),
);

/** A query string of the list parameters with random values. */
export const queryArbitrary = fc
  .dictionary(fc.constantFrom('limit', 'order', 'before', 'after', 'model', 'name', 'project_id', 'schema_id', 'expand'), fc.string({ maxLength: 8 }), {
    maxKeys: 4,
  })
  .map((params) => new URLSearchParams(params).toString());
