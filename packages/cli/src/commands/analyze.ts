import { writeFile } from 'node:fs/promises';
import type { EvaluationComparison } from '@docevals/core';
import type { DocevalsClient, EvaluationInfo } from '../client.js';
import { CliError, EXIT } from '../errors.js';
import { delta, pc, score, table } from '../output.js';
import { pickIteration } from './resolve.js';

export interface CompareReport {
  evaluation: { id: string; name: string };
  base: { id: string; model: string };
  head: { id: string; model: string };
  comparison: EvaluationComparison;
}

/** `docevals compare`: the compare API with `best`, `previous` and `latest` resolved on this side. */
export async function compareIterations(client: DocevalsClient, evaluation: EvaluationInfo, baseRef: string, headRef: string, threshold?: number): Promise<CompareReport> {
  const iterations = await client.listIterations(evaluation.id);
  const head = pickIteration(iterations, headRef);
  if (!head) throw new CliError(`${evaluation.name} has no completed iteration to compare (docevals run first)`, EXIT.usage);
  const base = pickIteration(iterations, baseRef, head);
  if (!base) throw new CliError(`${evaluation.name} has no ${baseRef} iteration to compare ${head.id} with: it needs two completed iterations`, EXIT.usage);
  const comparison = await client.compare(evaluation.id, base.id, head.id, threshold);
  return {
    evaluation: { id: evaluation.id, name: evaluation.name },
    base: { id: base.id, model: base.inference_settings.model },
    head: { id: head.id, model: head.inference_settings.model },
    comparison,
  };
}

export function formatCompare(report: CompareReport, maxRows = 20): string {
  const c = report.comparison;
  const lines = [
    `${pc.bold(report.evaluation.name)}: base ${report.base.id} (${report.base.model}) → head ${report.head.id} (${report.head.model})`,
    `mean similarity ${score(c.mean_similarity.base)} → ${score(c.mean_similarity.head)} (${delta(c.mean_similarity.delta)}) over ${c.compared_documents} documents; aligned ${score(c.aligned_mean_similarity.base)} → ${score(c.aligned_mean_similarity.head)} (${delta(c.aligned_mean_similarity.delta)})`,
    `failures ${c.failures.base ?? '—'} → ${c.failures.head ?? '—'}; ${c.regressed.length} documents regressed, ${c.improved.length} improved (threshold ${c.threshold})`,
    '',
    'fields, worst first:',
    table(
      ['field', 'docs', 'base', 'head', 'delta'],
      c.fields.slice(0, maxRows).map((f) => [f.field, String(f.documents), score(f.base_mean), score(f.head_mean), delta(f.delta)]),
      [1, 2, 3, 4],
    ),
  ];
  if (c.fields.length > maxRows) lines.push(pc.dim(`... ${c.fields.length - maxRows} more fields (--json for all)`));
  if (c.regressed.length) {
    lines.push('', 'regressed documents:');
    lines.push(
      table(
        ['document', 'file', 'base', 'head', 'delta'],
        c.regressed.slice(0, maxRows).map((d) => [d.document_id, d.filename, score(d.base_similarity), score(d.head_similarity), delta(d.delta)]),
        [2, 3, 4],
      ),
    );
  }
  if (c.excluded.length) lines.push('', pc.dim(`${c.excluded.length} documents not compared (failed or pending on one side)`));
  return lines.join('\n');
}

export interface GateOptions {
  minMean?: number;
  maxRegression?: number;
  against: 'best' | 'previous';
}

export interface GateCheck {
  name: 'min-mean' | 'max-regression';
  passed: boolean;
  message: string;
}

export interface GateReport {
  passed: boolean;
  evaluation: { id: string; name: string };
  iteration: { id: string; model: string; mean_similarity: number | null } | null;
  baseline: { id: string; model: string; mean_similarity: number | null } | null;
  checks: GateCheck[];
  regressed_documents: Array<{ document_id: string; filename: string; delta: number }>;
  regressed_fields: Array<{ field: string; delta: number }>;
}

/** `docevals gate`: does the latest completed iteration meet the bar? */
export async function gate(client: DocevalsClient, evaluation: EvaluationInfo, options: GateOptions): Promise<GateReport> {
  if (options.minMean === undefined && options.maxRegression === undefined) {
    throw new CliError('gate needs --min-mean and/or --max-regression', EXIT.usage);
  }
  const report: GateReport = {
    passed: true,
    evaluation: { id: evaluation.id, name: evaluation.name },
    iteration: null,
    baseline: null,
    checks: [],
    regressed_documents: [],
    regressed_fields: [],
  };
  const iterations = await client.listIterations(evaluation.id);
  const head = pickIteration(iterations, 'latest');
  if (!head) {
    report.passed = false;
    report.checks.push({ name: 'min-mean', passed: false, message: `${evaluation.name} has no completed iteration: nothing to gate (run docevals run first)` });
    return report;
  }
  const board = await client.leaderboard(evaluation.id);
  const meanOf = (id: string) => board.rows.find((r) => r.iteration_id === id)?.mean_similarity ?? null;
  report.iteration = { id: head.id, model: head.inference_settings.model, mean_similarity: meanOf(head.id) };
  if (options.minMean !== undefined) {
    const mean = report.iteration.mean_similarity;
    const passed = mean !== null && mean >= options.minMean;
    report.checks.push({
      name: 'min-mean',
      passed,
      message: passed
        ? `mean similarity ${score(mean, 4)} of ${head.id} (${report.iteration.model}) is at least ${options.minMean}`
        : `mean similarity ${score(mean, 4)} of ${head.id} (${report.iteration.model}) is below the minimum ${options.minMean}`,
    });
  }
  if (options.maxRegression !== undefined) {
    const base = pickIteration(iterations, options.against, head);
    if (!base) {
      report.checks.push({ name: 'max-regression', passed: true, message: `no ${options.against} iteration to compare ${head.id} with: regression not checked` });
    } else {
      report.baseline = { id: base.id, model: base.inference_settings.model, mean_similarity: meanOf(base.id) };
      const c = await client.compare(evaluation.id, base.id, head.id);
      const drop = c.mean_similarity.delta ?? 0;
      const passed = drop >= -options.maxRegression;
      report.regressed_documents = c.regressed.map((d) => ({ document_id: d.document_id, filename: d.filename, delta: d.delta }));
      report.regressed_fields = c.fields.filter((f) => f.delta !== null && f.delta < 0).map((f) => ({ field: f.field, delta: f.delta! }));
      const over = `over ${c.compared_documents} documents in both`;
      report.checks.push({
        name: 'max-regression',
        passed,
        message: passed
          ? `mean similarity moved ${delta(drop, 4)} against the ${options.against} iteration ${base.id} (${score(c.mean_similarity.base, 4)} → ${score(c.mean_similarity.head, 4)} ${over}), within the allowed ${options.maxRegression}`
          : `mean similarity dropped ${(-drop).toFixed(4)} against the ${options.against} iteration ${base.id} (${score(c.mean_similarity.base, 4)} → ${score(c.mean_similarity.head, 4)} ${over}), more than the allowed ${options.maxRegression}; ${c.regressed.length} documents regressed`,
      });
    }
  }
  report.passed = report.checks.every((c) => c.passed);
  return report;
}

 
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');

export function formatGateText(report: GateReport): string {
  const lines = [
    `${report.passed ? pc.green('gate passed') : pc.red('gate FAILED')}: ${report.evaluation.name}${report.iteration ? `, iteration ${report.iteration.id}` : ''}`,
    ...report.checks.map((c) => `  ${c.passed ? pc.green('✓') : pc.red('✗')} ${c.name}: ${c.message}`),
  ];
  if (!report.passed && report.regressed_fields.length) {
    lines.push('  fields that dropped most:');
    for (const f of report.regressed_fields.slice(0, 5)) lines.push(`    ${delta(f.delta)}  ${f.field}`);
  }
  if (!report.passed && report.regressed_documents.length) {
    lines.push('  documents that dropped most:');
    for (const d of report.regressed_documents.slice(0, 5)) lines.push(`    ${delta(d.delta)}  ${d.filename} (${d.document_id})`);
  }
  return lines.join('\n');
}

const xml = (text: string) =>
  plain(text).replace(/[<>&"']/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[ch]!);

/** JUnit XML: one test suite, one test case per check; a failed check is a `<failure>`. */
export function formatGateJunit(report: GateReport): string {
  const failures = report.checks.filter((c) => !c.passed).length;
  const cases = report.checks.map((c) => {
    const open = `    <testcase classname="docevals.gate.${xml(report.evaluation.name)}" name="${c.name}">`;
    if (c.passed) return `${open}\n      <system-out>${xml(c.message)}</system-out>\n    </testcase>`;
    const detail = plain(formatGateText(report));
    return `${open}\n      <failure message="${xml(c.message)}" type="${c.name}">${xml(detail)}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="docevals" tests="${report.checks.length}" failures="${failures}">`,
    `  <testsuite name="docevals gate ${xml(report.evaluation.name)}" tests="${report.checks.length}" failures="${failures}" errors="0">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** GitHub Actions workflow commands: `::error` per failed check, `::notice` per passed one. */
export function formatGateGithub(report: GateReport): string {
  const escape = (text: string) => plain(text).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  return report.checks
    .map((c) => `::${c.passed ? 'notice' : 'error'} title=docevals gate ${c.name} (${escape(report.evaluation.name)})::${escape(c.message)}`)
    .join('\n');
}

export async function writeOrPrint(text: string, output: string | undefined): Promise<void> {
  if (output) {
    await writeFile(output, text).catch((error: NodeJS.ErrnoException) => {
      throw new CliError(`cannot write ${output}: ${error.code ?? error.message}`, EXIT.usage);
    });
  } else process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}
