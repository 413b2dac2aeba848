import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { useTRPC } from '../trpc.js';

export function EvaluationPage() {
  const { evaluationId = '' } = useParams();
  const trpc = useTRPC();
  const evaluation = useQuery(trpc.evals.get.queryOptions({ evaluation_id: evaluationId }));
  return <h1>{evaluation.data?.name ?? 'Evaluation'}</h1>;
}
