import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { PROVIDERS } from '@docevals/core/internal';
import { useId, useState, type FormEvent } from 'react';
import { errorMessage, httpStatus, useTRPC, type RouterInputs, type RouterOutputs } from '../trpc.js';

type Provider = RouterInputs['secrets']['externalApiKeys']['create']['provider'];
type ExternalApiKey = RouterOutputs['secrets']['externalApiKeys']['list'][number];

/** What the provider select offers: the providers (core's table), then the organization's own OpenAI-compatible endpoint. */
const CUSTOM = 'custom';
const PROVIDER_CHOICES: ReadonlyArray<{ value: Provider | typeof CUSTOM; label: string }> = [
  ...PROVIDERS.map((provider) => ({ value: provider, label: provider })),
  { value: CUSTOM, label: 'Custom OpenAI-compatible endpoint (vLLM, Ollama, LiteLLM, Azure)' },
];

/** Model names typed as a list: split on commas and white space, empty parts dropped. */
export function parseModelNames(text: string): string[] {
  return text.split(/[\s,]+/).filter((name) => name !== '');
}

/**
 * `/settings`: the organization's model provider keys (docs/secrets.md): which providers have one (never the key),
 * its custom OpenAI-compatible endpoint, a form to add or replace one, and removal. Every change refreshes
 * `models.list`, so the run form offers the models the organization can run now.
 */
export function SettingsPage() {
  const trpc = useTRPC();
  const keys = useQuery(trpc.secrets.externalApiKeys.list.queryOptions());
  const custom = useQuery(trpc.secrets.customEndpoint.get.queryOptions());
  // 501: the server has no master key; its message says how to configure one (no form then: nothing can be stored).
  const unavailable = httpStatus(keys.error) === 501 ? keys.error : null;

  return (
    <>
      <h1>Settings</h1>
      <section aria-labelledby="providers-title">
        <h2 id="providers-title">Model providers</h2>
        <p className="muted">
          The organization&rsquo;s keys for model providers. They are stored encrypted and never shown again; its iterations run
          with them. A provider without a key here uses the server&rsquo;s own key, when it has one.
        </p>
        {unavailable ? (
          <p role="alert">{errorMessage(unavailable)}</p>
        ) : (
          <>
            {keys.error && <p role="alert">Cannot list the provider keys: {errorMessage(keys.error)}</p>}
            {custom.error && <p role="alert">Cannot read the custom endpoint: {errorMessage(custom.error)}</p>}
            {(keys.isPending || custom.isPending) && !keys.error && <p aria-busy="true">Loading…</p>}
            {keys.data && custom.data && <ProviderTable keys={keys.data} custom={custom.data} />}
            <AddKeyForm />
          </>
        )}
      </section>
    </>
  );
}

/** One row per provider, then the custom endpoint: configured or not, when, and "Remove". */
function ProviderTable(props: { keys: readonly ExternalApiKey[]; custom: RouterOutputs['secrets']['customEndpoint']['get'] }) {
  const { custom } = props;
  return (
    <table>
      <caption>Keys of this organization</caption>
      <thead>
        <tr>
          <th scope="col">Provider</th>
          <th scope="col">Key</th>
          <th scope="col">Last updated</th>
          <th scope="col">
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {props.keys.map((key) => (
          <tr key={key.provider}>
            <th scope="row">{key.provider}</th>
            <td>{key.is_configured ? 'Configured' : 'Not configured'}</td>
            <td>{key.last_updated ? <time dateTime={key.last_updated}>{new Date(key.last_updated).toLocaleString()}</time> : '–'}</td>
            <td>{key.is_configured && <RemoveButton provider={key.provider} />}</td>
          </tr>
        ))}
        <tr>
          <th scope="row">Custom endpoint</th>
          <td>
            {custom.is_configured ? (
              <>
                <code>{custom.base_url}</code> · {custom.has_api_key ? 'with a key' : 'no key'} · models:{' '}
                {custom.models.map((model) => `custom/${model}`).join(', ')}
              </>
            ) : (
              'Not configured'
            )}
          </td>
          <td>{custom.last_updated ? <time dateTime={custom.last_updated}>{new Date(custom.last_updated).toLocaleString()}</time> : '–'}</td>
          <td>{custom.is_configured && <RemoveButton provider={CUSTOM} />}</td>
        </tr>
      </tbody>
    </table>
  );
}

/** Everything a secrets change makes stale: the secrets and the models the organization can run. */
function useRefreshSecrets() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.secrets.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.models.pathKey() }),
    ]);
}

/** "Remove" after a confirmation: deletes the provider's key (or the custom endpoint). */
function RemoveButton({ provider }: { provider: Provider | typeof CUSTOM }) {
  const trpc = useTRPC();
  const refresh = useRefreshSecrets();
  const [confirming, setConfirming] = useState(false);
  const name = provider === CUSTOM ? 'the custom endpoint' : `the ${provider} key`;
  const removeKey = useMutation(trpc.secrets.externalApiKeys.delete.mutationOptions({ onSuccess: refresh }));
  const removeCustom = useMutation(trpc.secrets.customEndpoint.delete.mutationOptions({ onSuccess: refresh }));
  const pending = removeKey.isPending || removeCustom.isPending;
  const failure = removeKey.error ?? removeCustom.error;
  const remove = () => (provider === CUSTOM ? removeCustom.mutate() : removeKey.mutate({ provider }));
  return (
    <div className="row">
      {confirming ? (
        <span role="group" aria-label={`Confirm removing ${name}`} className="row">
          <span>Remove {name}?</span>
          <button type="button" className="danger" onClick={remove} disabled={pending}>
            Yes, remove
          </button>
          <button type="button" onClick={() => setConfirming(false)} autoFocus>
            Keep it
          </button>
        </span>
      ) : (
        <button type="button" className="danger" onClick={() => setConfirming(true)} aria-label={`Remove ${name}`}>
          Remove
        </button>
      )}
      {failure && <span role="alert">{errorMessage(failure)}</span>}
    </div>
  );
}

/** Provider, key, and for a custom endpoint its base URL and models: stores (or replaces) it. */
function AddKeyForm() {
  const trpc = useTRPC();
  const refresh = useRefreshSecrets();
  const id = useId();
  const [provider, setProvider] = useState<Provider | typeof CUSTOM>('OpenAI');
  const [apiKey, setApiKey] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [models, setModels] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const createKey = useMutation(trpc.secrets.externalApiKeys.create.mutationOptions());
  const setCustom = useMutation(trpc.secrets.customEndpoint.set.mutationOptions());
  const isCustom = provider === CUSTOM;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setSaved(null);
    const key = apiKey.trim();
    try {
      if (isCustom) {
        const names = parseModelNames(models);
        if (names.length === 0) {
          setError('Models: name at least one model the endpoint serves (for example llama3.1).');
          return;
        }
        await setCustom.mutateAsync({ base_url: baseUrl.trim(), models: names, ...(key ? { api_key: key } : {}) });
        setSaved(`Custom endpoint saved: its models run as ${names.map((name) => `custom/${name}`).join(', ')}.`);
      } else {
        await createKey.mutateAsync({ provider, api_key: key });
        setSaved(`${provider} key saved.`);
      }
      // The key leaves the page once stored.
      setApiKey('');
      await refresh();
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }

  return (
    <form className="panel" onSubmit={(event) => void submit(event)} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Add a key</h2>
      <p className="field-hint">A provider that already has a key gets the new one in its place.</p>
      <label htmlFor={`${id}-provider`}>Provider</label>
      <select id={`${id}-provider`} value={provider} onChange={(event) => setProvider(event.target.value as Provider | typeof CUSTOM)}>
        {PROVIDER_CHOICES.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
      {isCustom && <CustomEndpointFields id={id} baseUrl={baseUrl} onBaseUrl={setBaseUrl} models={models} onModels={setModels} />}
      <label htmlFor={`${id}-key`}>{isCustom ? 'API key (optional)' : 'API key'}</label>
      <input
        id={`${id}-key`}
        type="password"
        value={apiKey}
        onChange={(event) => setApiKey(event.target.value)}
        required={!isCustom}
        autoComplete="off"
        spellCheck={false}
      />
      {error && <p role="alert">{error}</p>}
      {saved && <p aria-live="polite">{saved}</p>}
      <div className="row" style={{ marginTop: '0.75rem' }}>
        <button type="submit" className="primary" disabled={createKey.isPending || setCustom.isPending}>
          Save key
        </button>
      </div>
    </form>
  );
}

/** A custom endpoint's base URL and model names. */
function CustomEndpointFields(props: { id: string; baseUrl: string; onBaseUrl: (value: string) => void; models: string; onModels: (value: string) => void }) {
  return (
    <>
      <label htmlFor={`${props.id}-base-url`}>Base URL</label>
      <input
        id={`${props.id}-base-url`}
        type="url"
        value={props.baseUrl}
        onChange={(event) => props.onBaseUrl(event.target.value)}
        required
        placeholder="http://localhost:11434/v1"
        aria-describedby={`${props.id}-base-url-hint`}
      />
      <p id={`${props.id}-base-url-hint`} className="field-hint">
        The OpenAI-compatible base URL (the one that ends before <code>/chat/completions</code>).
      </p>
      <label htmlFor={`${props.id}-models`}>Models</label>
      <input id={`${props.id}-models`} value={props.models} onChange={(event) => props.onModels(event.target.value)} required aria-describedby={`${props.id}-models-hint`} />
      <p id={`${props.id}-models-hint`} className="field-hint">
        The model names it serves, separated by commas; they run as <code>custom/&lt;name&gt;</code>.
      </p>
    </>
  );
}
