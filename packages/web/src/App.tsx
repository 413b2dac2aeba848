import { QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { BrowserRouter, Link, Route, Routes, useParams } from 'react-router';
import { signOut, useApiKey } from './auth.js';
import { prefetchEvaluation } from './evaluation-data.js';
import { ThemeToggle } from './components/ThemeToggle.js';
import { EvaluationsPage } from './pages/EvaluationsPage.js';
import { SignInPage } from './pages/SignInPage.js';
import { APP_BASE, createClient, createQueryClient, TRPCProvider, useTRPC, useTRPCClient } from './trpc.js';

// The evaluation page and the document and compare views load on first visit: the list page stays small.
const EvaluationPage = lazy(() => import('./pages/EvaluationPage.js').then((m) => ({ default: m.EvaluationPage })));
const DocumentPage = lazy(() => import('./pages/DocumentPage.js').then((m) => ({ default: m.DocumentPage })));
const IterationPage = lazy(() => import('./pages/IterationPage.js').then((m) => ({ default: m.IterationPage })));
const ComparePage = lazy(() => import('./pages/ComparePage.js').then((m) => ({ default: m.ComparePage })));
const SettingsPage = lazy(() => import('./pages/SettingsPage.js').then((m) => ({ default: m.SettingsPage })));

/**
 * `/evals/:evaluationId`: its first reads start at once (`prefetchEvaluation`), while the page's chunk loads (a
 * Suspense of its own, so that this component commits and its effect runs without waiting for the chunk).
 */
function EvaluationRoute() {
  const { evaluationId = '' } = useParams();
  const queryClient = useQueryClient();
  const trpc = useTRPC();
  const client = useTRPCClient();
  useEffect(() => prefetchEvaluation(queryClient, trpc, client, evaluationId), [queryClient, trpc, client, evaluationId]);
  return (
    <Suspense fallback={<p aria-busy="true">Loading…</p>}>
      <EvaluationPage />
    </Suspense>
  );
}

/**
 * The app: the tRPC and TanStack Query providers, the sign-in gate (a key in sessionStorage) and the routes of
 * docs/web.md: `/`, `/evals/:evaluationId`, `/evals/:evaluationId/documents/:documentId`,
 * `/evals/:evaluationId/compare?base=&head=`, `/evals/:evaluationId/iterations/:iterationId`, `/settings` (the
 * organization's model provider keys).
 */
export function App() {
  const [refused, setRefused] = useState(false);
  const [queryClient] = useState(() =>
    createQueryClient(() => {
      setRefused(true);
      signOut();
    }),
  );
  const [trpcClient] = useState(createClient);
  const apiKey = useApiKey();

  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <BrowserRouter basename={APP_BASE || undefined}>
          <header className="app-header">
            <Link className="brand" to="/">
              docevals
            </Link>
            <span className="spacer" />
            {apiKey !== null && <Link to="/settings">Settings</Link>}
            <ThemeToggle />
            {apiKey !== null && (
              <button
                type="button"
                onClick={() => {
                  setRefused(false);
                  signOut();
                  queryClient.clear();
                }}
              >
                Sign out
              </button>
            )}
          </header>
          <main>
            {apiKey === null ? (
              <SignInPage
                expired={refused}
                onSignedIn={() => {
                  setRefused(false);
                  queryClient.clear();
                }}
              />
            ) : (
              <Suspense fallback={<p aria-busy="true">Loading…</p>}>
                <Routes>
                  <Route path="/" element={<EvaluationsPage />} />
                  <Route path="/evals/:evaluationId" element={<EvaluationRoute />} />
                  <Route path="/evals/:evaluationId/documents/:documentId" element={<DocumentPage />} />
                  <Route path="/evals/:evaluationId/compare" element={<ComparePage />} />
                  <Route path="/settings" element={<SettingsPage />} />
                  <Route path="/evals/:evaluationId/iterations/:iterationId" element={<IterationPage />} />
                  <Route path="*" element={<NotFound />} />
                </Routes>
              </Suspense>
            )}
          </main>
        </BrowserRouter>
      </TRPCProvider>
    </QueryClientProvider>
  );
}

function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        <Link to="/">Back to the evaluations</Link>
      </p>
    </>
  );
}
