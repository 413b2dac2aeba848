import { Link, useParams } from 'react-router';

/** Placeholder: the `webdoc` helper replaces this page (document view, edit ground truth). */
export function DocumentPage() {
  const { evaluationId = '', documentId = '' } = useParams();
  return (
    <>
      <h1>Document {documentId}</h1>
      <p>
        <Link to={`/evals/${encodeURIComponent(evaluationId)}`}>Back to the evaluation</Link>
      </p>
    </>
  );
}
