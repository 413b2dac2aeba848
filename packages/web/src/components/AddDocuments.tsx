import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { FileDrop } from './FileDrop.js';
import { ImportAnnotations } from './ImportAnnotations.js';
import { FormButtons, PanelHeader } from './Panel.js';
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
      await queryClient.invalidateQueries({ queryKey: trpc.evals.pathKey() });
    }
  }
  return (
    <section aria-labelledby="add-documents-title" className="panel">
      <PanelHeader id="add-documents-title" title="Documents" open={open} onToggle={() => setOpen(!open)} button="Add documents" />
      {open && (
        <form onSubmit={(event) => void submit(event)}>
          <FileDrop label="Files to add" files={files} onChange={setFiles} />
          <FormButtons submit={`Add ${files.length > 0 ? plural(files.length, 'file') : 'files'}`} pending={progress !== null} disabled={files.length === 0} onCancel={() => setOpen(false)} cancel="Close" />
        </form>
      )}
      {progress && <p aria-live="polite">{progress}</p>}
      {outcome && <p aria-live="polite">{outcome}</p>}
      {error && <p role="alert">{error}</p>}
      <ImportAnnotations evaluationId={props.evaluationId} />
    </section>
  );
}
