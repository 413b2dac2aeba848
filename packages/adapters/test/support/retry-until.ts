/**
 * Retries `probe` until it resolves (an adapter reconnects by itself in the background): a failure is retried after
 * `pollMs` until `timeoutMs` have passed, then thrown. A probe in flight is always awaited to its end.
 */
export async function retryUntil<T>(probe: () => Promise<T>, options: { timeoutMs: number; pollMs: number }): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, options.pollMs));
    }
  }
}
