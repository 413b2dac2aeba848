import type { JsonObject, JsonValue } from '../../json/assert-json.js';
import { coerceText } from './coerce-value.js';
import { fillObject, hasFound, isArrayOfObjects } from './fill-fields.js';
import { normalizeLabel } from './labels.js';
import type { FieldNode, ObjectNode, PropertyNode, ScalarNode } from './schema-fields.js';
import type { TextLayout, TextTable } from './text-layout.js';

interface Range {
  from: number;
  to: number;
}

/** Where a nested object's fields are looked for: its section, and the labels of its ancestors. */
interface Scope {
  /** Lines of the section headed by the object's label, when the text has one. */
  section: Range | null;
  /** Normalized ancestor labels to put before a field's label (`customer` + `name`); `['']` at the top. */
  prefixes: string[];
}

/**
 * Fills the schema from a text: each field from a "Label: value" line whose label matches it (in the section
 * headed by its parent object's label, or as "Parent Field: value"), arrays of objects from the table whose header
 * matches the item's fields best. A field no label matches stays null: local-rules never guesses.
 */
export function fillFromText(root: ObjectNode, layout: TextLayout): JsonObject {
  return new TextFiller(root, layout).fill();
}

class TextFiller {
  private readonly byLabel = new Map<string, Array<{ value: string; line: number }>>();
  private readonly labelUses = new Map<string, number>();
  private readonly objectLabels = new Set<string>();
  private readonly sections: Range[] = [];
  private readonly headingAt = new Map<number, string>();

  constructor(
    private readonly root: ObjectNode,
    private readonly layout: TextLayout,
  ) {
    for (const entry of layout.labeled) {
      const key = normalizeLabel(entry.label);
      if (key === '') continue;
      const list = this.byLabel.get(key) ?? [];
      list.push({ value: entry.value, line: entry.line });
      this.byLabel.set(key, list);
    }
    for (const heading of layout.headings) this.headingAt.set(heading.line, normalizeLabel(heading.text));
    this.countLabels(root);
  }

  fill(): JsonObject {
    return this.fillObjectNode(this.root, { section: null, prefixes: [''] });
  }

  private countLabels(node: FieldNode): void {
    if (node.kind === 'array') return this.countLabels(node.items);
    if (node.kind !== 'object') return;
    for (const property of node.properties) {
      for (const label of property.labels) this.labelUses.set(label, (this.labelUses.get(label) ?? 0) + 1);
      if (property.node.kind === 'object') property.labels.forEach((l) => this.objectLabels.add(l));
      this.countLabels(property.node);
    }
  }

  private fillObjectNode(node: ObjectNode, scope: Scope): JsonObject {
    return fillObject(node, (property) => this.fillProperty(property, scope));
  }

  private fillProperty(property: PropertyNode, scope: Scope): JsonValue | undefined {
    const node = property.node;
    if (node.kind === 'object') {
      const labels = combine(scope.prefixes, property.labels);
      const section = this.findSection(labels, scope.section);
      const filled = this.fillObjectNode(node, { section: section ?? scope.section, prefixes: labels });
      return hasFound(filled) ? filled : undefined;
    }
    if (isArrayOfObjects(node)) return this.fillTable(node.items, property.labels);
    if (node.kind === 'array') {
      if (node.items.kind !== 'scalar') return undefined;
      const items = node.items;
      return this.findText(property, scope, (text) => {
        const parts = text.split(/\s*[,;]\s*/).filter((p) => p !== '');
        const values = parts.map((p) => coerceText(p, items));
        return values.every((v) => v !== undefined) && values.length > 0 ? (values as JsonValue[]) : undefined;
      });
    }
    return this.findText(property, scope, (text) => coerceText(text, node as ScalarNode));
  }

  /**
   * The first labeled line that converts: in the object's section by the field's own label, then anywhere as
   * "Parent Field", then (top-level fields, or labels only this field uses) anywhere outside other sections.
   */
  private findText(
    property: PropertyNode,
    scope: Scope,
    convert: (text: string) => JsonValue | undefined,
  ): JsonValue | undefined {
    const nested = !(scope.prefixes.length === 1 && scope.prefixes[0] === '');
    const attempts: Array<{ labels: string[]; range: Range | null; outsideSections: boolean }> = [];
    if (scope.section) attempts.push({ labels: property.labels, range: scope.section, outsideSections: false });
    if (nested) attempts.push({ labels: combine(scope.prefixes, property.labels), range: null, outsideSections: false });
    const unique = property.labels.filter((l) => this.labelUses.get(l) === 1);
    if (!nested) attempts.push({ labels: property.labels, range: null, outsideSections: true }, { labels: property.labels, range: null, outsideSections: false });
    else if (unique.length > 0) attempts.push({ labels: unique, range: null, outsideSections: true });
    for (const attempt of attempts) {
      for (const label of attempt.labels) {
        for (const entry of this.byLabel.get(label) ?? []) {
          if (attempt.range && (entry.line < attempt.range.from || entry.line > attempt.range.to)) continue;
          if (attempt.outsideSections && this.sections.some((s) => entry.line >= s.from && entry.line <= s.to)) continue;
          const value = convert(entry.value);
          if (value !== undefined) return value;
        }
      }
    }
    return undefined;
  }

  /** The lines under a heading matching `labels`, up to a blank line after content, or the next known heading. */
  private findSection(labels: string[], within: Range | null): Range | null {
    const { headings, lines } = this.layout;
    const heading = headings.find(
      (h) => labels.includes(normalizeLabel(h.text)) && (!within || (h.line >= within.from && h.line <= within.to)),
    );
    if (!heading) return null;
    const limit = within ? within.to : lines.length - 1;
    let end = heading.line;
    let content = false;
    for (let i = heading.line + 1; i <= limit; i++) {
      const line = lines[i]!.trim();
      if (line === '') {
        if (content) break;
        continue;
      }
      const other = this.headingAt.get(i);
      if (other !== undefined && (this.objectLabels.has(other) || /^#/.test(line))) break;
      content = true;
      end = i;
    }
    const range = { from: heading.line, to: end };
    this.sections.push(range);
    return range;
  }

  /** Rows of the table whose header matches most of the item's fields (a caption naming the array breaks ties). */
  private fillTable(items: ObjectNode, arrayLabels: string[]): JsonValue[] | undefined {
    let best: { table: TextTable; columns: Map<string, number>; score: number } | null = null;
    for (const table of this.layout.tables) {
      const columns = matchColumns(items, table.header);
      const caption = normalizeLabel(table.caption.replace(/:$/, ''));
      const score = columns.size + (arrayLabels.includes(caption) ? 0.5 : 0);
      if (columns.size > 0 && (!best || score > best.score)) best = { table, columns, score };
    }
    if (!best) return undefined;
    const { table, columns } = best;
    const out: JsonValue[] = [];
    for (const row of table.rows) {
      const item = fillObject(items, (property) => {
        const index = columns.get(property.key);
        if (index === undefined || property.node.kind !== 'scalar') return undefined;
        return coerceText(row[index] ?? '', property.node);
      });
      if (hasFound(item)) out.push(item);
    }
    return out;
  }
}

/** Column of each scalar field of the item, by header label. */
function matchColumns(items: ObjectNode, header: string[]): Map<string, number> {
  const normalized = header.map((h) => normalizeLabel(h));
  const columns = new Map<string, number>();
  for (const property of items.properties) {
    if (property.node.kind !== 'scalar') continue;
    const index = normalized.findIndex((h, i) => property.labels.includes(h) && ![...columns.values()].includes(i));
    if (index >= 0) columns.set(property.key, index);
  }
  return columns;
}

function combine(prefixes: string[], labels: string[]): string[] {
  const out = new Set<string>();
  for (const prefix of prefixes) for (const label of labels) out.add(prefix + label);
  return [...out];
}
