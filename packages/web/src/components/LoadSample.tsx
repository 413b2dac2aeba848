import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { errorMessage, useTRPC } from '../trpc.js';

/**
 * "Load the sample": asks the server for its sample evaluation (`evals.loadSample`; the standalone server's is 32
 * generated invoices, receipts and forms in text, PDF and image, with ground truth and two named iterations) and
 * opens it. A host that offers none answers `not_configured`, shown as the server's message.
 */
export function LoadSample() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const load = useMutation(
    trpc.evals.loadSample.mutationOptions({
      onSuccess: async (evaluation) => {
        await queryClient.invalidateQueries({ queryKey: trpc.evals.pathKey() });
        void navigate(`/evals/${encodeURIComponent(evaluation.id)}`);
      },
    }),
  );
  return (
    <>
      <button type="button" onClick={() => load.mutate({})} disabled={load.isPending} aria-describedby="load-sample-hint">
        {load.isPending ? 'Loading the sample…' : 'Load the sample'}
      </button>
      <span id="load-sample-hint" className="sr-only">
        creates an evaluation of invoices, receipts and forms (text, PDF, images) with ground truth and two iterations, to try every view
      </span>
      {load.error && <p role="alert">Cannot load the sample: {errorMessage(load.error)}</p>}
    </>
  );
}
