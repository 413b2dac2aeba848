import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { TableHead } from './Panel.js';
import { plural } from '../evaluation-data.js';
import { importFile, rowKind, type ImportFile } from '../annotation-files.js';
import { errorMessage, useTRPC, type RouterOutputs } from '../trpc.js';

type ImportResult = RouterOutputs['evals']['documents']['import'];

const KIND_TEXT = { matched: 'will be updated', unmatched: 'no such document', invalid: 'invalid' } as const;

/**
 * "Import annotations": a CSV, JSONL or JSON file of ground truths keyed by file name (or document id) is first
 * previewed (`documents.import` with `dry_run`: each row matched, unmatched or invalid, nothing written), then applied
 * on "Apply" with the same call without `dry_run`; every figure is read again after.
 */
export function ImportAnnotations(props: { evaluationId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [file, setFile] = useState<(ImportFile & { name: string }) | null>(null);
  const [preview, setPreview] = useState<ImportResult | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const inputId = useId();
  const call = useMutation(trpc.evals.documents.import.mutationOptions());

  async function choose(chosen: File | undefined) {
    setPreview(null);
    setOutcome(null);
    setProblem(null);
    setFile(null);
    if (!chosen) return;
    try {
      const parsed = { ...importFile(chosen.name, await chosen.text()), name: chosen.name };
      setFile(parsed);
      setPreview(await call.mutateAsync({ evaluation_id: props.evaluationId, format: parsed.format, content: parsed.content, dry_run: true }));
    } catch (failure) {
      setProblem(`Cannot read ${chosen.name}: ${errorMessage(failure)}`);
    }
  }

  async function apply() {
    if (!file) return;
    setProblem(null);
    try {
      const result = await call.mutateAsync({ evaluation_id: props.evaluationId, format: file.format, content: file.content });
      setOutcome(`${plural(result.updated, 'annotation')} updated from ${file.name}${result.refused > 0 ? `; ${plural(result.refused, 'row')} refused` : ''}.`);
      setPreview(null);
      setFile(null);
      setOpen(false);
      await queryClient.invalidateQueries();
    } catch (failure) {
      setProblem(errorMessage(failure));
    }
  }

  const counts = { matched: 0, unmatched: 0, invalid: 0 };
  for (const row of preview?.rows ?? []) counts[rowKind(row)] += 1;
  return (
    <div>
      <button type="button" onClick={() => setOpen(!open)} aria-expanded={open}>
        Import annotations
      </button>
      {open && (
        <div className="panel" style={{ marginTop: '0.5rem' }}>
          <label htmlFor={inputId}>Annotations file</label>
          <input id={inputId} type="file" accept=".csv,.jsonl,.ndjson,.json" onChange={(event) => void choose(event.target.files?.[0])} aria-describedby={`${inputId}-hint`} />
          <p id={`${inputId}-hint`} className="field-hint">
            CSV with a <code>filename</code> (or <code>document_id</code>) column and one column per field (<code>bill_to.name</code>,{' '}
            <code>line_items.0.amount</code>); JSONL or a JSON array of <code>{'{"filename": …, "annotation": {…}}'}</code>. Previewed first: nothing changes
            before "Apply".
          </p>
          {call.isPending && <p aria-busy="true">Reading {file?.name ?? 'the file'}…</p>}
          {preview && <ImportPreview id={inputId} name={file?.name ?? ''} preview={preview} counts={counts} pending={call.isPending} onApply={() => void apply()} />}
        </div>
      )}
      {problem && <p role="alert">{problem}</p>}
      {outcome && <p aria-live="polite">{outcome}</p>}
    </div>
  );
}

/** What an import would do, row by row (matched, unmatched, invalid, with the issues), and "Apply" for the matched. */
function ImportPreview(props: { id: string; name: string; preview: ImportResult; counts: Record<'matched' | 'unmatched' | 'invalid', number>; pending: boolean; onApply: () => void }) {
  return (
    <section aria-labelledby={`${props.id}-preview`}>
      <h3 id={`${props.id}-preview`}>Preview of {props.name}</h3>
      <p aria-live="polite">
        {plural(props.counts.matched, 'row')} matched · {plural(props.counts.unmatched, 'row')} unmatched · {plural(props.counts.invalid, 'row')} invalid
      </p>
      <div className="side-scroll">
        <table aria-label="Import preview">
          <TableHead columns={['Row#', 'Document', 'Outcome', 'Why']} />
          <tbody>
            {props.preview.rows.map((row) => (
              <tr key={row.row} className={`import-${rowKind(row)}`}>
                <td className="number">{row.row}</td>
                <th scope="row">{row.filename ?? row.document_id ?? '–'}</th>
                <td>{KIND_TEXT[rowKind(row)]}</td>
                <td>{row.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="row">
        <button type="button" className="primary" disabled={props.counts.matched === 0 || props.pending} onClick={props.onApply}>
          Apply {plural(props.counts.matched, 'row')}
        </button>
        <span className="field-hint">unmatched and invalid rows change nothing</span>
      </p>
    </section>
  );
}
