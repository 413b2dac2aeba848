import { Link, useParams, useSearchParams } from 'react-router';

/** Placeholder: the `webdoc` helper replaces this page (compare view). */
export function ComparePage() {
  const { evaluationId = '' } = useParams();
  const [search] = useSearchParams();
  return (
    <>
      <h1>
        Compare {search.get('base')} with {search.get('head')}
      </h1>
      <p>
        <Link to={`/evals/${encodeURIComponent(evaluationId)}`}>Back to the evaluation</Link>
      </p>
    </>
  );
}
