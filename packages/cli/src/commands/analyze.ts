import { writeFile } from 'node:fs/promises';
import type { EvaluationComparison, IterationSummary } from '@docevals/core';
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
    ...(c.mean_similarity.paired ? [`paired delta ${delta(c.mean_similarity.paired.delta, 4)}, ${interval(c.mean_similarity.paired)}: ${c.mean_similarity.paired.significant ? pc.bold('significant') : 'not significant'}`] : []),
    `failures ${c.failures.base ?? '—'} → ${c.failures.head ?? '—'} (counted as 0); ${c.regressed.length} documents regressed, ${c.improved.length} improved (threshold ${c.threshold})`,
    '',
    'fields, worst first:',
    table(
      ['field', 'docs', 'base', 'head', 'delta', 'sig'],
      c.fields.slice(0, maxRows).map((f) => [f.field, String(f.documents), score(f.base_mean), score(f.head_mean), delta(f.delta), f.paired?.significant ? '*' : '']),
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
  if (c.excluded.length) lines.push('', pc.dim(`${c.excluded.length} documents not compared (unlabeled, or pending on one side)`));
  if (c.fields.some((f) => f.paired?.significant)) lines.push(pc.dim('* the field\'s paired delta is significant (its 95% bootstrap interval excludes 0)'));
  return lines.join('\n');
}

export interface GateOptions {
  minMean?: number;
  maxRegression?: number;
  against: 'best' | 'previous';
  /** Failed labeled documents allowed: a count (`3`) or a share of the labeled documents (`5%`). Default 0. */
  maxFailed?: string;
  /** --max-regression fails only when the drop is significant (its 95% interval excludes 0). */
  significant?: boolean;
}

export interface GateCheck {
  name: 'max-failed' | 'min-mean' | 'max-regression';
  passed: boolean;
  message: string;
}

/** A document whose extraction failed in the gated iteration. */
export interface GateFailedDocument {
  document_id: string;
  filename: string;
}

export interface GateReport {
  passed: boolean;
  evaluation: { id: string; name: string };
  iteration: {
    id: string;
    model: string;
    /** Failure-counting, over labeled documents (docs/spec/metrics.md section 5). */
    mean_similarity: number | null;
    succeeded_mean_similarity: number | null;
    coverage: number | null;
    counts: { documents: number; succeeded: number; failed: number; unlabeled: number; pending: number };
  } | null;
  baseline: { id: string; model: string; mean_similarity: number | null } | null;
  checks: GateCheck[];
  /** Every labeled document that failed in the gated iteration. */
  failed_documents: GateFailedDocument[];
  /** The paired delta of the mean against the baseline, with its 95% interval (when --max-regression ran). */
  regression: { delta: number; ci_low: number; ci_high: number; significant: boolean; n: number } | null;
  regressed_documents: Array<{ document_id: string; filename: string; delta: number }>;
  regressed_fields: Array<{ field: string; delta: number; significant: boolean | null }>;
}

/** `--max-failed N` or `N%`: how many failed labeled documents the gate allows out of `labeled`. */
export function allowedFailures(value: string | undefined, labeled: number): number {
  if (value === undefined) return 0;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(value);
  if (!match) throw new CliError(`--max-failed takes a count (3) or a percentage (5%), not "${value}"`, EXIT.usage);
  const n = Number(match[1]);
  if (match[2] === '%') {
    if (n > 100) throw new CliError(`--max-failed ${value}: a percentage is at most 100%`, EXIT.usage);
    return Math.floor((n / 100) * labeled + 1e-9);
  }
  if (!Number.isInteger(n)) throw new CliError(`--max-failed ${value}: a count is a whole number`, EXIT.usage);
  return n;
}

/** The labeled documents that failed in `iterationId`, read from the matrix a page at a time (no content). */
async function failedDocuments(client: DocevalsClient, evaluationId: string, iterationId: string): Promise<GateFailedDocument[]> {
  const out: GateFailedDocument[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await client.matrix(evaluationId, after);
    const column = page.iterations.findIndex((i) => i.id === iterationId);
    if (column < 0) return out;
    for (const row of page.data) {
      if (row.labeled !== false && row.statuses[column] === 'failed') out.push({ document_id: row.document_id, filename: row.filename });
    }
    if (!page.list_metadata.after) return out;
    after = page.list_metadata.after;
  }
}

const interval = (p: { ci_low: number; ci_high: number }) => `95% CI [${p.ci_low >= 0 ? '+' : ''}${p.ci_low.toFixed(4)}, ${p.ci_high >= 0 ? '+' : ''}${p.ci_high.toFixed(4)}]`;

/**
 * `docevals gate`: does the latest finished iteration meet the bar? Strict by default: any failed labeled document
 * fails it (`--max-failed` allows some); `--min-mean` reads the failure-counting mean; `--max-regression` compares
 * against a baseline and, with `--significant`, fails only on a significant drop (docs/cli.md).
 */
export async function gate(client: DocevalsClient, evaluation: EvaluationInfo, options: GateOptions): Promise<GateReport> {
  const report: GateReport = {
    passed: true,
    evaluation: { id: evaluation.id, name: evaluation.name },
    iteration: null,
    baseline: null,
    checks: [],
    failed_documents: [],
    regression: null,
    regressed_documents: [],
    regressed_fields: [],
  };
  if (options.significant && options.maxRegression === undefined) {
    throw new CliError('--significant qualifies --max-regression: give both', EXIT.usage);
  }
  const iterations = await client.listIterations(evaluation.id);
  // The newest finished one: an iteration in which every document failed (status failed) is gated too, not skipped.
  const head = iterations.filter((i) => i.status === 'completed' || i.status === 'failed').at(-1);
  if (!head) {
    report.passed = false;
    report.checks.push({ name: 'min-mean', passed: false, message: `${evaluation.name} has no finished iteration: nothing to gate (run docevals run first)` });
    return report;
  }
  const figures = head.metric_results;
  const counts = figures.counts;
  const finished = counts.succeeded + counts.failed;
  const mean = finished > 0 ? figures.mean_similarity : null;
  report.iteration = {
    id: head.id,
    model: head.inference_settings.model,
    mean_similarity: mean,
    succeeded_mean_similarity: figures.succeeded_mean_similarity,
    coverage: figures.coverage,
    counts,
  };
  const labeled = counts.documents - counts.unlabeled;
  const allowed = allowedFailures(options.maxFailed, labeled);
  report.failed_documents = counts.failed > 0 ? await failedDocuments(client, evaluation.id, head.id) : [];
  const failedCount = Math.max(counts.failed, report.failed_documents.length);
  const named = report.failed_documents.slice(0, 10).map((d) => d.filename).join(', ');
  const more = report.failed_documents.length > 10 ? ` and ${report.failed_documents.length - 10} more` : '';
  const unlabeledNote = counts.unlabeled > 0 ? `; ${counts.unlabeled} unlabeled documents in no figure (annotate them)` : '';
  report.checks.push({
    name: 'max-failed',
    passed: failedCount <= allowed,
    message:
      failedCount === 0
        ? `no labeled document failed in ${head.id} (${counts.succeeded} of ${labeled} succeeded${counts.pending ? `, ${counts.pending} pending` : ''})${unlabeledNote}`
        : `${failedCount} of ${labeled} labeled documents failed in ${head.id} (allowed ${allowed}): ${named}${more}${unlabeledNote}`,
  });
  if (options.minMean !== undefined) {
    const passed = mean !== null && mean >= options.minMean;
    const detail = `${score(mean, 4)} of ${head.id} (${report.iteration.model}; failures count 0, coverage ${score(figures.coverage, 4)}, ${score(figures.succeeded_mean_similarity, 4)} over succeeded documents)`;
    report.checks.push({
      name: 'min-mean',
      passed,
      message: passed ? `mean similarity ${detail} is at least ${options.minMean}` : `mean similarity ${detail} is below the minimum ${options.minMean}`,
    });
  }
  if (options.maxRegression !== undefined) await checkRegression(client, evaluation, iterations, head, { ...options, maxRegression: options.maxRegression }, report);
  report.passed = report.checks.every((c) => c.passed);
  return report;
}

/** `--max-regression` (with `--against`, `--significant`): the head's mean against the baseline's, on the same documents. */
async function checkRegression(
  client: DocevalsClient,
  evaluation: EvaluationInfo,
  iterations: IterationSummary[],
  head: IterationSummary,
  options: GateOptions & { maxRegression: number },
  report: GateReport,
): Promise<void> {
  const base = pickIteration(iterations.filter((i) => i.id !== head.id || head.status === 'completed'), options.against, head);
  if (!base) {
    report.checks.push({ name: 'max-regression', passed: true, message: `no ${options.against} iteration to compare ${head.id} with: regression not checked` });
  } else {
    const baseCounts = base.metric_results.counts;
    report.baseline = {
      id: base.id,
      model: base.inference_settings.model,
      mean_similarity: baseCounts.succeeded + baseCounts.failed > 0 ? base.metric_results.mean_similarity : null,
    };
    const c = await client.compare(evaluation.id, base.id, head.id);
    const drop = c.mean_similarity.delta ?? 0;
    const paired = c.mean_similarity.paired ?? null;
    report.regression = paired;
    const tooLarge = drop < -options.maxRegression;
    const passed = !tooLarge || (options.significant === true && paired !== null && !paired.significant);
    report.regressed_documents = c.regressed.map((d) => ({ document_id: d.document_id, filename: d.filename, delta: d.delta }));
    report.regressed_fields = c.fields
      .filter((f) => f.delta !== null && f.delta < 0)
      .map((f) => ({ field: f.field, delta: f.delta!, significant: f.paired?.significant ?? null }));
    const over = `over ${c.compared_documents} documents in both, failures counting 0`;
    const ci = paired ? `, ${interval(paired)}, ${paired.significant ? 'significant' : 'not significant'}` : '';
    const moved = `${score(c.mean_similarity.base, 4)} → ${score(c.mean_similarity.head, 4)} ${over}${ci}`;
    report.checks.push({
      name: 'max-regression',
      passed,
      message: !tooLarge
        ? `mean similarity moved ${delta(drop, 4)} against the ${options.against} iteration ${base.id} (${moved}), within the allowed ${options.maxRegression}`
        : passed
          ? `mean similarity dropped ${(-drop).toFixed(4)} against the ${options.against} iteration ${base.id} (${moved}): more than ${options.maxRegression}, but not significant (--significant)`
          : `mean similarity dropped ${(-drop).toFixed(4)} against the ${options.against} iteration ${base.id} (${moved}), more than the allowed ${options.maxRegression}; ${c.regressed.length} documents regressed`,
    });
  }
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
  if (report.failed_documents.length) {
    lines.push(`  failed documents (${report.failed_documents.length}):`);
    for (const d of report.failed_documents.slice(0, 20)) lines.push(`    ${d.filename} (${d.document_id})`);
    if (report.failed_documents.length > 20) lines.push(`    ... ${report.failed_documents.length - 20} more (--format json lists all)`);
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
  const checks = report.checks.map(
    (c) => `::${c.passed ? 'notice' : 'error'} title=docevals gate ${c.name} (${escape(report.evaluation.name)})::${escape(c.message)}`,
  );
  const failed = report.failed_documents.map(
    (d) => `::error title=docevals failed document (${escape(report.evaluation.name)})::${escape(`${d.filename} (${d.document_id}) failed in ${report.iteration?.id ?? ''}`)}`,
  );
  return [...checks, ...failed].join('\n');
}

export async function writeOrPrint(text: string, output: string | undefined): Promise<void> {
  if (output) {
    await writeFile(output, text).catch((error: NodeJS.ErrnoException) => {
      throw new CliError(`cannot write ${output}: ${error.code ?? error.message}`, EXIT.usage);
    });
  } else process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}
