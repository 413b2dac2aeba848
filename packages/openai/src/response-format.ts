import type { JsonObject, JsonValue } from '@docevals/core';

/**
 * Whether OpenAI's strict structured outputs can take `schema` as it is: every object schema in it says
 * `additionalProperties: false` and lists all its properties in `required`. Otherwise the schema is sent with
 * `strict: false` (the model is guided by it, and the core validates the output).
 */
export function allowsStrict(schema: JsonValue): boolean {
  const stack: JsonValue[] = [schema];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    const types = Array.isArray(node.type) ? node.type : [node.type];
    const isObjectSchema = types.includes('object') || (node.properties !== undefined && typeof node.properties === 'object');
    if (isObjectSchema) {
      if (node.additionalProperties !== false) return false;
      const properties = node.properties && typeof node.properties === 'object' && !Array.isArray(node.properties) ? Object.keys(node.properties) : [];
      const required = Array.isArray(node.required) ? node.required : [];
      if (properties.some((p) => !required.includes(p))) return false;
    }
    for (const [key, value] of Object.entries(node)) {
      // Examples and defaults are data, not schemas.
      if (key !== 'examples' && key !== 'default' && key !== 'enum' && key !== 'const') stack.push(value);
    }
  }
  return true;
}

/** A response_format name (a-z, A-Z, 0-9, `_`, `-`; at most 64) from the schema's title, else `extraction`. */
export function schemaName(schema: JsonObject): string {
  const title = typeof schema.title === 'string' ? schema.title : '';
  const name = title.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 64);
  return name === '' ? 'extraction' : name;
}

/**
 * The system prompt: the task, the rule against invented values, and the fields' descriptions (the schema's
 * prompts) by path, so a description reaches the model even when the provider ignores schema annotations.
 */
export function systemPrompt(schema: JsonObject): string {
  const lines = [
    'You extract structured data from the document the user sends.',
    'Answer with one JSON object that conforms to the given JSON schema.',
    'Copy values as the document writes them; use null for a value the document does not contain. Never invent values.',
  ];
  const described: string[] = [];
  collectDescriptions(schema, '', described, 0);
  if (described.length > 0) lines.push('', 'Fields:', ...described);
  return lines.join('\n');
}

function collectDescriptions(node: JsonValue, path: string, out: string[], depth: number): void {
  if (depth > 32 || node === null || typeof node !== 'object' || Array.isArray(node)) return;
  const description = typeof node.description === 'string' ? node.description : undefined;
  if (path !== '' && description) out.push(`- ${path}: ${description}`);
  if (node.properties && typeof node.properties === 'object' && !Array.isArray(node.properties)) {
    for (const [key, sub] of Object.entries(node.properties)) collectDescriptions(sub, path === '' ? key : `${path}.${key}`, out, depth + 1);
  }
  if (node.items !== undefined) collectDescriptions(node.items, `${path}[]`, out, depth + 1);
}
