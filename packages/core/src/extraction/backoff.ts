/**
 * The delay before retry number `retry` (1 for the first retry): exponential backoff with full jitter, a uniform
 * draw in [0, min(max, base * 2^(retry-1))]. Full jitter spreads the retries of many documents that failed together
 * (a 429 burst) instead of sending them back in one wave.
 *
 * @example
 * backoffDelay(1, { backoffBaseMs: 500, backoffMaxMs: 10_000 }); // somewhere in [0, 500]
 */
export function backoffDelay(
  retry: number,
  options: { backoffBaseMs: number; backoffMaxMs: number },
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(options.backoffMaxMs, options.backoffBaseMs * 2 ** Math.max(0, retry - 1));
  return Math.max(0, Math.floor(random() * ceiling));
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms));
}
