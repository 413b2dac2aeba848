import { describe, expect, it } from 'vitest';
import { computeFileId, computeSchemaDataId, computeSchemaId, structuralSchema } from '../../src/index.js';
import { expectValidationError } from '../metrics/expect-validation-error.js';

describe('computeFileId', () => {
  it('is file_ + BLAKE2b with an 8-byte digest', () => {
    // Values from Python's hashlib.blake2b(data, digest_size=8).
    expect(computeFileId(new Uint8Array())).toBe('file_e4a6a0577479b2b4');
    expect(computeFileId(new TextEncoder().encode('abc'))).toBe('file_d8bb14d833d59559');
    expect(computeFileId(new TextEncoder().encode('héllo 𠀀'))).toBe('file_61ce9e6d55ee7416');
  });

  it('refuses what is not bytes', () => {
    expectValidationError(() => computeFileId('abc' as never), 'bytes');
  });
});

describe('computeSchemaId / computeSchemaDataId', () => {
  const schema = { type: 'object', properties: { name: { type: 'string' } } };

  it('hashes the canonical JSON', () => {
    // hashlib.blake2b(b'{"properties": {"name": {"type": "string"}}, "type": "object"}', digest_size=8)
    expect(computeSchemaId(schema)).toBe('sch_id_43f279067b51615c');
    expect(computeSchemaDataId(schema)).toBe('sch_data_id_43f279067b51615c'); // nothing to drop
  });

  it('keeps the data id when only prompts change, not the schema id', () => {
    const annotated = {
      type: 'object',
      title: 'Person',
      description: 'someone',
      required: ['name'],
      'x-prompt': 'be careful',
      properties: { name: { type: 'string', description: 'the full name', examples: ['Ada'] } },
    };
    expect(computeSchemaDataId(annotated)).toBe(computeSchemaDataId(schema));
    expect(computeSchemaId(annotated)).not.toBe(computeSchemaId(schema));
    expect(computeSchemaDataId({ ...schema, properties: { name: { type: 'number' } } })).not.toBe(computeSchemaDataId(schema));
  });

  it('refuses schemas that are not JSON', () => {
    expectValidationError(() => computeSchemaId({ a: Number.NaN } as never), 'value.a');
    expectValidationError(() => computeSchemaDataId({ a: () => 1 } as never), 'schema.a');
  });
});

describe('structuralSchema', () => {
  it('drops prompt keys case-insensitively, x- keys, keys holding {} and the empty key', () => {
    expect(
      structuralSchema({
        type: 'string',
        Description: 'd',
        TITLE: 't',
        default: 'x',
        examples: [],
        required: [],
        deprecated: true,
        readOnly: true,
        writeOnly: false,
        'X-Reasoning': 'r',
        'x-other': {},
        '': 1,
        items: {},
        format: 'date',
        $comment: 'kept',
      }),
    ).toEqual({ type: 'string', format: 'date', $comment: 'kept' });
  });

  it('keeps property names and cleans every subschema keyword', () => {
    expect(
      structuralSchema({
        type: 'object',
        properties: { description: { type: 'string', title: 'x' }, title: true, empty: {} },
        patternProperties: { '^a': { type: 'number', default: 1 } },
        $defs: { D: { type: 'integer', description: 'd' } },
        definitions: { E: { type: 'null', title: 'e' } },
        dependentSchemas: { a: { title: 'only a title' } },
        allOf: [{ description: 'x', minimum: 1 }],
        anyOf: [false, { title: 'y', type: 'string' }],
        oneOf: [{ examples: [1], type: 'number' }],
        prefixItems: [{ title: 'p', type: 'string' }],
        items: { description: 'becomes {} and stays' },
        additionalProperties: { type: 'string', 'x-a': 1 },
        not: { title: 'n', type: 'null' },
        if: { title: 'i', type: 'string' },
        then: { title: 't', minLength: 1 },
        else: { title: 'e', maxLength: 0 },
        contains: { title: 'c', const: 1 },
        propertyNames: { title: 'pn', pattern: '^x' },
        unevaluatedItems: { title: 'ui', type: 'string' },
        unevaluatedProperties: { title: 'up', type: 'string' },
        const: { title: 'a value, not a schema' },
        enum: [{ description: 'also a value' }],
      }),
    ).toEqual({
      type: 'object',
      properties: { description: { type: 'string' }, title: true, empty: {} },
      patternProperties: { '^a': { type: 'number' } },
      $defs: { D: { type: 'integer' } },
      definitions: { E: { type: 'null' } },
      dependentSchemas: { a: {} },
      allOf: [{ minimum: 1 }],
      anyOf: [false, { type: 'string' }],
      oneOf: [{ type: 'number' }],
      prefixItems: [{ type: 'string' }],
      items: {},
      additionalProperties: { type: 'string' },
      not: { type: 'null' },
      if: { type: 'string' },
      then: { minLength: 1 },
      else: { maxLength: 0 },
      contains: { const: 1 },
      propertyNames: { pattern: '^x' },
      unevaluatedItems: { type: 'string' },
      unevaluatedProperties: { type: 'string' },
      const: { title: 'a value, not a schema' },
      enum: [{ description: 'also a value' }],
    });
  });

  it('keeps boolean schemas and does not modify its argument', () => {
    expect(structuralSchema(true)).toBe(true);
    expect(structuralSchema(false)).toBe(false);
    const input = { type: 'string', description: 'd' };
    structuralSchema(input);
    expect(input).toEqual({ type: 'string', description: 'd' });
  });

  it('hashes non-ASCII prompts and names through canonical escapes', () => {
    const a = { type: 'object', properties: { 'имя': { type: 'string', description: '名前 𠀀' } } };
    const b = { type: 'object', properties: { 'имя': { type: 'string' } } };
    expect(computeSchemaDataId(a)).toBe(computeSchemaDataId(b));
    expect(computeSchemaId(a)).not.toBe(computeSchemaId(b));
  });
});
