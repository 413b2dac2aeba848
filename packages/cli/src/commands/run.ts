import { createInterface } from 'node:readline/promises';
import type { IterationSummary } from '@docevals/core';
import cliProgress from 'cli-progress';
import type { DocevalsClient, EvaluationInfo } from '../client.js';
import { CliError, EXIT } from '../errors.js';
import { money, pc, score, type Output } from '../output.js';

export interface RunOptions {
  model: string;
  nConsensus?: number;
  /** Says how to reach this iteration again (`docevals cancel ...`). */
  commandPrefix: string;
}

export interface RunReport {
  evaluation: { id: string; name: string };
  iteration: IterationSummary;
  /** `interrupted`: Ctrl-C, the iteration left running or cancelled on request. */
  outcome: 'completed' | 'failed' | 'cancelled' | 'interrupted';
  failures: Array<{ document_id: string; error: string }>;
  leaderboard: { rank: number; of: number; mean_similarity: number | null; aligned_mean_similarity: number | null; cost: number | null; duration_ms: number | null } | null;
  worst_fields: Array<{ field: string; mean_similarity: number | null; exact: number; missing: number; unexpected: number; partial: number }>;
}

/** What Ctrl-C does: asks on a terminal, leaves the iteration running otherwise. */
async function askOnInterrupt(): Promise<'cancel' | 'leave'> {
  if (!process.stdin.isTTY) return 'leave';
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`\n${pc.yellow('Interrupted.')} Cancel the iteration (c) or leave it running (l)? [l/c] `);
    return /^c/i.test(answer.trim()) ? 'cancel' : 'leave';
  } finally {
    rl.close();
  }
}

/** What a run knows so far: the iteration as last seen, how it ended, the documents that failed. */
interface RunState {
  iteration: IterationSummary;
  outcome: RunReport['outcome'];
  failures: RunReport['failures'];
}

/**
 * `docevals run <eval> --model M`: starts a background iteration and follows its events (bar, ETA, failures, cost),
 * then prints its leaderboard line and worst fields. A server that answers 200 (no background jobs) is followed
 * by its synchronous answer instead.
 */
export async function runIteration(client: DocevalsClient, evaluation: EvaluationInfo, options: RunOptions, out: Output): Promise<RunReport> {
  const settings = { model: options.model, ...(options.nConsensus ? { n_consensus: options.nConsensus } : {}) };
  const started = await client.createIteration(evaluation.id, settings);
  const run: RunState = { iteration: started.iteration, outcome: 'completed', failures: [] };
  out.note(`iteration ${pc.bold(run.iteration.id)} (${options.model}) on ${evaluation.name}: ${run.iteration.progress.total} documents`);

  if (started.background) {
    if (await follow(client, evaluation, run, options, out)) {
      return { evaluation: { id: evaluation.id, name: evaluation.name }, iteration: run.iteration, outcome: 'interrupted', failures: run.failures, leaderboard: null, worst_fields: [] };
    }
    if (run.outcome === 'completed' && run.iteration.status !== 'completed') run.iteration = await client.getIteration(evaluation.id, run.iteration.id);
  } else {
    const { status } = run.iteration;
    run.outcome = status === 'failed' || status === 'cancelled' ? status : 'completed';
  }
  return finalReport(client, evaluation, run);
}

/** Follows a background iteration's events until it ends or Ctrl-C; true when interrupted. */
async function follow(client: DocevalsClient, evaluation: EvaluationInfo, run: RunState, options: RunOptions, out: Output): Promise<boolean> {
  const controller = new AbortController();
  let interrupted: Promise<void> | null = null;
  const bar = process.stderr.isTTY && !out.json
    ? new cliProgress.SingleBar(
        {
          format: `${pc.cyan('{bar}')} {value}/{total} | {failed} failed | cost {cost} | ETA {eta_formatted}`,
          hideCursor: true,
          stream: process.stderr,
          etaBuffer: 20,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  const payload = { failed: 0, cost: money(run.iteration.usage.cost) };
  bar?.start(run.iteration.progress.total, run.iteration.progress.succeeded + run.iteration.progress.failed, payload);
  // Cost is on the iteration, not on the events: read it now and then while the stream runs.
  const costTimer = setInterval(() => {
    void client.getIteration(evaluation.id, run.iteration.id).then(
      (now) => bar?.update({ ...payload, cost: money(now.usage.cost) }),
      () => undefined,
    );
  }, 2000);
  const onSigint = () => {
    if (interrupted) return;
    bar?.stop();
    interrupted = interrupt(client, evaluation, run, options, out, controller);
  };
  process.on('SIGINT', onSigint);
  try {
    for await (const event of client.events(evaluation.id, run.iteration.id, controller.signal)) {
      if (event.type === 'document') {
        if (event.data.error) {
          run.failures.push({ document_id: event.data.document_id, error: event.data.error });
          payload.failed = run.failures.length;
          if (!bar) out.note(`${pc.red('failed')} ${event.data.document_id}: ${event.data.error}`);
        }
        bar?.increment(1, payload);
      } else if (event.type === 'progress') {
        bar?.update(event.data.succeeded + event.data.failed, payload);
      } else {
        run.iteration = event.data;
        run.outcome = event.type;
      }
    }
  } finally {
    clearInterval(costTimer);
    bar?.stop();
  }
  if (interrupted) await Promise.resolve(interrupted);
  process.off('SIGINT', onSigint);
  return interrupted !== null;
}

/** Ctrl-C: asks whether to cancel the iteration or leave it running, stops following, says what became of it. */
async function interrupt(
  client: DocevalsClient,
  evaluation: EvaluationInfo,
  run: RunState,
  options: RunOptions,
  out: Output,
  controller: AbortController,
): Promise<void> {
  const choice = await askOnInterrupt();
  controller.abort();
  run.outcome = 'interrupted';
  if (choice === 'cancel') {
    const iteration = (run.iteration = await client.cancelIteration(evaluation.id, run.iteration.id));
    out.note(
      iteration.status === 'cancelled'
        ? `cancelled iteration ${iteration.id}: ${iteration.progress.succeeded + iteration.progress.failed}/${iteration.progress.total} documents done are kept`
        : `iteration ${iteration.id} was already ${iteration.status}: nothing to cancel`,
    );
  } else {
    out.note(
      `left iteration ${run.iteration.id} running. Follow or cancel it with:\n  ${options.commandPrefix} cancel ${evaluation.id} ${run.iteration.id}` +
        (client.target.startsWith('lowdb') ? '\n(with --data-dir the run stops with this process and resumes the next time docevals opens the folder)' : ''),
    );
  }
}

/** The report of a run that ended: its leaderboard row and, when it completed, its worst fields. */
async function finalReport(client: DocevalsClient, evaluation: EvaluationInfo, { iteration, outcome, failures }: RunState): Promise<RunReport> {
  const [board, fields] = await Promise.all([
    client.leaderboard(evaluation.id),
    outcome === 'completed' ? client.fields(evaluation.id, iteration.id) : Promise.resolve(null),
  ]);
  const row = board.rows.find((r) => r.iteration_id === iteration.id);
  return {
    evaluation: { id: evaluation.id, name: evaluation.name },
    iteration,
    outcome,
    failures,
    leaderboard: row
      ? { rank: row.rank, of: board.rows.length, mean_similarity: row.mean_similarity, aligned_mean_similarity: row.aligned_mean_similarity, cost: row.cost, duration_ms: row.duration_ms }
      : null,
    worst_fields: (fields?.fields ?? [])
      .filter((f) => f.mean_similarity !== null && f.mean_similarity < 1)
      .slice(0, 5)
      .map(({ field, mean_similarity, exact, missing, unexpected, partial }) => ({ field, mean_similarity, exact, missing, unexpected, partial })),
  };
}

export function formatRunReport(report: RunReport): string {
  const it = report.iteration;
  const p = it.progress;
  const lines = [
    `${report.outcome === 'completed' ? pc.green('completed') : pc.red(report.outcome)} ${it.id} (${it.inference_settings.model}): ${p.succeeded}/${p.total} succeeded, ${p.failed} failed${p.pending ? `, ${p.pending} pending` : ''}`,
  ];
  if (it.error) lines.push(pc.red(`  ${it.error}`));
  // How the mean is made (docs/spec/metrics.md section 5); absent from an older server's answer.
  const m = it.metric_results as Partial<typeof it.metric_results>;
  if (m.counts) {
    const parts = [
      `coverage ${score(m.coverage ?? null)}`,
      `mean over succeeded ${score(m.succeeded_mean_similarity ?? null)}`,
      ...(m.schema_valid_rate !== null && m.schema_valid_rate !== undefined && m.schema_valid_rate < 1 ? [`schema-valid ${score(m.schema_valid_rate)}`] : []),
      ...(m.counts.unlabeled > 0 ? [`${m.counts.unlabeled} unlabeled (no ground truth: in no figure, annotate them)`] : []),
    ];
    lines.push(`figures: failures count 0 in the mean | ${parts.join(' | ')}`);
  }
  const lb = report.leaderboard;
  if (lb) {
    lines.push(
      `leaderboard: #${lb.rank} of ${lb.of} | mean ${pc.bold(score(lb.mean_similarity))} | aligned ${score(lb.aligned_mean_similarity)} | cost ${money(lb.cost)} | ${lb.duration_ms === null ? '—' : `${(lb.duration_ms / 1000).toFixed(1)}s`}`,
    );
  }
  if (report.worst_fields.length) {
    lines.push('worst fields:');
    for (const f of report.worst_fields) {
      lines.push(`  ${score(f.mean_similarity)}  ${f.field}  ${pc.dim(`(${f.exact} exact, ${f.partial} partial, ${f.missing} missing, ${f.unexpected} unexpected)`)}`);
    }
  } else if (report.outcome === 'completed') lines.push('every field exact');
  for (const f of report.failures.slice(0, 10)) lines.push(`  ${pc.red('failed')} ${f.document_id}: ${f.error}`);
  if (report.failures.length > 10) lines.push(pc.dim(`  ... ${report.failures.length - 10} more failures`));
  return lines.join('\n');
}

export function runExitCode(report: RunReport): number {
  if (report.outcome === 'interrupted') return EXIT.interrupted;
  return report.outcome === 'completed' ? EXIT.ok : EXIT.incomplete;
}

export { CliError };
