import { useSyncExternalStore } from 'react';

/** Where the key is kept: this tab only, gone when it closes. */
const STORAGE_KEY = 'docevals.apiKey';
const listeners = new Set<() => void>();

function notify() {
  for (const listener of listeners) listener();
}

/** The signed-in API key, or null. */
export function readApiKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** Keeps `key` for this tab: every tRPC call, the progress stream and the downloads send it. */
export function signIn(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
  notify();
}

/** Forgets the key: the app shows the sign-in page. */
export function signOut(): void {
  sessionStorage.removeItem(STORAGE_KEY);
  notify();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The signed-in API key (re-renders on sign-in and sign-out), or null. */
export function useApiKey(): string | null {
  return useSyncExternalStore(subscribe, readApiKey, () => null);
}

/** Headers that carry the key, for `fetch` calls outside tRPC (REST downloads). */
export function authHeaders(): Record<string, string> {
  const key = readApiKey();
  return key ? { 'Api-Key': key } : {};
}
