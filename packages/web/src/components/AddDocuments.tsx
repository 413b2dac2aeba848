import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { FileDrop } from './FileDrop.js';
import { ImportAnnotations } from './ImportAnnotations.js';
import { plural } from '../evaluation-data.js';
import { readAsDataUrl } from '../files.js';
import { errorMessage, useTRPC } from '../trpc.js';

/**
 * Add documents (files chosen or dropped) to this evaluation: each is sent with `documents.add`, one at a time with
 * progress; the matrix and the counts are read again after. They start without ground truth (pending in every
 * iteration until run again).
 */
export function AddDocuments(props: { evaluationId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [files, setFiles] = useState<File[]>([]);
  const [progress, setProgress] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const add = useMutation(trpc.evals.documents.add.mutationOptions());
  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setOutcome(null);
    let added = 0;
    try {
      for (const [index, file] of files.entries()) {
        setProgress(`Adding ${file.name} (${index + 1} of ${files.length})…`);
        await add.mutateAsync({ evaluation_id: props.evaluationId, mime_data: { filename: file.name, url: await readAsDataUrl(file) } });
        added += 1;
      }
      setFiles([]);
      setOpen(false);
    } catch (failure) {
      setError(`${errorMessage(failure)} (${plural(added, 'document')} added before it)`);
      setFiles(files.slice(added));
    } finally {
      setProgress(null);
      if (added > 0) setOutcome(`${plural(added, 'document')} added.`);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: trpc.evals.pathKey() }),
        queryClient.invalidateQueries({ queryKey: ['matrix', props.evaluationId] }),
      ]);
    }
  }
  return (
    <section aria-labelledby="add-documents-title" className="panel">
      <div className="row">
        <h2 id="add-documents-title" style={{ margin: 0, flex: 1 }}>
          Documents
        </h2>
        <button type="button" onClick={() => setOpen(!open)} aria-expanded={open}>
          Add documents
        </button>
      </div>
      {open && (
        <form onSubmit={(event) => void submit(event)}>
          <FileDrop label="Files to add" files={files} onChange={setFiles} />
          <p className="row" style={{ marginTop: '0.75rem' }}>
            <button type="submit" className="primary" disabled={files.length === 0 || progress !== null}>
              Add {files.length > 0 ? plural(files.length, 'file') : 'files'}
            </button>
            <button type="button" onClick={() => setOpen(false)}>
              Close
            </button>
          </p>
        </form>
      )}
      {progress && <p aria-live="polite">{progress}</p>}
      {outcome && <p aria-live="polite">{outcome}</p>}
      {error && <p role="alert">{error}</p>}
      <ImportAnnotations evaluationId={props.evaluationId} />
    </section>
  );
}
