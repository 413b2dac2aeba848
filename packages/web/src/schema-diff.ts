/** One difference between two JSON schemas, at a field's path (`bill_to.name`, `line_items.*.amount`). */
export interface SchemaChange {
  path: string;
  kind: 'added' | 'removed' | 'changed';
  /** For `changed`: what changed on the field itself, as "type: string → number"; for the others, its type. */
  detail: string;
}

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);

/** What a field is, without what is under it (its properties, its items): what a change of the field itself is in. */
function own(node: Node): Node {
  const { properties: _properties, items: _items, ...rest } = node;
  return rest;
}

const show = (value: unknown) => (value === undefined ? '(none)' : JSON.stringify(value));

function describe(node: Node): string {
  return typeof node.type === 'string' || Array.isArray(node.type) ? `type ${show(node.type)}` : 'field';
}

/** The changed keywords of a field (`type`, `enum`, `description`...), as "key: before → after". */
function ownChanges(before: Node, after: Node): string[] {
  const a = own(before);
  const b = own(after);
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.filter((key) => JSON.stringify(a[key]) !== JSON.stringify(b[key])).map((key) => `${key}: ${show(a[key])} → ${show(b[key])}`);
}

function walk(before: Node, after: Node, path: string, out: SchemaChange[]) {
  const changes = ownChanges(before, after);
  if (changes.length > 0) out.push({ path: path === '' ? '(root)' : path, kind: 'changed', detail: changes.join('; ') });
  const a = isNode(before.properties) ? before.properties : {};
  const b = isNode(after.properties) ? after.properties : {};
  const prefix = path === '' ? '' : `${path}.`;
  for (const key of Object.keys(a)) if (!(key in b) && isNode(a[key])) out.push({ path: `${prefix}${key}`, kind: 'removed', detail: describe(a[key]) });
  for (const key of Object.keys(b)) {
    if (!isNode(b[key])) continue;
    if (!(key in a) || !isNode(a[key])) out.push({ path: `${prefix}${key}`, kind: 'added', detail: describe(b[key]) });
    else walk(a[key], b[key], `${prefix}${key}`, out);
  }
  if (isNode(before.items) && isNode(after.items)) walk(before.items, after.items, `${prefix}*`, out);
  else if (isNode(before.items) !== isNode(after.items)) out.push({ path: `${prefix}*`, kind: isNode(after.items) ? 'added' : 'removed', detail: 'list items' });
}

/**
 * The differences from `before` (the evaluation's schema) to `after` (an iteration's): fields added, removed, and
 * changed (their type, enum, description... each keyword said with its two values), parents before children; none
 * when the two are the same.
 */
export function schemaDiff(before: Record<string, unknown>, after: Record<string, unknown>): SchemaChange[] {
  const out: SchemaChange[] = [];
  walk(before, after, '', out);
  return out;
}
