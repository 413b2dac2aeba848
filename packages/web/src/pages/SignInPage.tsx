import { useState, type FormEvent } from 'react';
import { createTRPCClient, httpLink } from '@trpc/client';
import { signIn } from '../auth.js';
import { errorMessage, isUnauthorized, TRPC_URL, type AppRouter } from '../trpc.js';

/** Checks a key with one cheap call (`models.list`) before keeping it. */
async function checkKey(key: string): Promise<void> {
  const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: TRPC_URL, headers: { 'Api-Key': key } })] });
  await client.models.list.query();
}

/** The sign-in page: an API key, checked against the server, kept in sessionStorage. */
export function SignInPage(props: { expired?: boolean; onSignedIn?: () => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(props.expired ? 'The server refused the API key: it is not valid (any more). Sign in again.' : null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = key.trim();
    if (trimmed === '') {
      setError('Enter an API key: the server printed one at its first start (or see API_KEYS).');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await checkKey(trimmed);
      signIn(trimmed);
      props.onSignedIn?.();
    } catch (failure) {
      setError(isUnauthorized(failure) ? 'This API key is not valid: check it and try again.' : `Cannot reach the server: ${errorMessage(failure)}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="sign-in panel" onSubmit={(event) => void submit(event)} aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in</h1>
      <p className="muted">The key stays in this tab (sessionStorage) and goes with every call to the server.</p>
      <label htmlFor="api-key">API key</label>
      <input
        id="api-key"
        type="text"
        autoComplete="off"
        spellCheck={false}
        value={key}
        onChange={(event) => setKey(event.target.value)}
        aria-describedby={error ? 'sign-in-error' : undefined}
        autoFocus
      />
      {error && (
        <p role="alert" id="sign-in-error">
          {error}
        </p>
      )}
      <p>
        <button className="primary" type="submit" disabled={busy}>
          Sign in
        </button>
      </p>
    </form>
  );
}
