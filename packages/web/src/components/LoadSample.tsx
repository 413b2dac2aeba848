import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage, useTRPC, useTRPCClient } from '../trpc.js';

/**
 * "Load the sample": creates the sample evaluation (`src/sample.ts`, a chunk loaded on the click: eight invoices in
 * five languages and formats, their ground truth, two named imported iterations) and opens it.
 */
export function LoadSample() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  async function load() {
    setBusy(true);
    setProblem(null);
    try {
      const { sampleEvaluation } = await import('../sample.js');
      const { input, names } = sampleEvaluation();
      const evaluation = await client.evals.create.mutate(input);
      await Promise.all(
        evaluation.iterations.map((iteration, i) => client.evals.iterations.updateMetadata.mutate({ evaluation_id: evaluation.id, iteration_id: iteration.id, ...names[i] })),
      );
      await queryClient.invalidateQueries({ queryKey: trpc.evals.pathKey() });
      void navigate(`/evals/${encodeURIComponent(evaluation.id)}`);
    } catch (failure) {
      setProblem(`Cannot load the sample: ${errorMessage(failure)}`);
    } finally {
      setBusy(false);
    }
  }
  return (
    <>
      <button type="button" onClick={() => void load()} disabled={busy} aria-describedby="load-sample-hint">
        {busy ? 'Loading the sample…' : 'Load the sample'}
      </button>
      <span id="load-sample-hint" className="sr-only">
        creates an evaluation of eight invoices with ground truth and two iterations, to try every view
      </span>
      {problem && <p role="alert">{problem}</p>}
    </>
  );
}
