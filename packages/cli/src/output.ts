import pc from 'picocolors';

/** Where a command writes: results to stdout, progress and notes to stderr (so `--json | jq` stays clean). */
export interface Output {
  json: boolean;
  /** A result: JSON with `--json`, else the text. */
  result(text: string, data: unknown): void;
  /** A line on stderr (progress notes, warnings); silent with `--json`. */
  note(text: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    result: (text, data) => process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : text.endsWith('\n') ? text : `${text}\n`),
    note: (text) => {
      if (!json) process.stderr.write(`${text}\n`);
    },
  };
}

/** A similarity as a fixed-width figure, `—` when there is none. */
export const score = (value: number | null | undefined, digits = 3) => (value === null || value === undefined ? '—' : value.toFixed(digits));

/** A signed delta, red when it drops, green when it gains. */
export function delta(value: number | null | undefined, digits = 3): string {
  if (value === null || value === undefined) return pc.dim('—');
  const text = `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;
  return value < 0 ? pc.red(text) : value > 0 ? pc.green(text) : pc.dim(text);
}

export const money = (value: number | null | undefined) => (value === null || value === undefined ? '—' : `$${value.toFixed(4)}`);

 
const visibleLength = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '').length;

/** Rows as aligned columns (numbers right-aligned), a dim header line first. */
export function table(header: string[], rows: string[][], rightAligned: number[] = []): string {
  const widths = header.map((h, i) => Math.max(visibleLength(h), ...rows.map((r) => visibleLength(r[i] ?? ''))));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => {
        const pad = ' '.repeat(Math.max(0, widths[i] - visibleLength(cell)));
        return rightAligned.includes(i) ? pad + cell : cell + pad;
      })
      .join('  ')
      .trimEnd();
  return [pc.dim(line(header)), ...rows.map(line)].join('\n');
}

export { pc };
