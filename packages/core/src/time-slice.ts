/**
 * Cooperative time slicing for work proportional to a request's size (docs/decisions.md, "No request holds the event
 * loop"): the work calls `await pace()` between small steps; `pace` returns at once until `sliceMs` have passed since
 * the last yield, then yields to the event loop with a macrotask (other requests' I/O and timers run), so one large
 * import, export or submit delays the others by at most one slice.
 *
 * @example
 * const pace = pacer();
 * for (const row of rows) { check(row); await pace(); }
 */
export function pacer(sliceMs = DEFAULT_SLICE_MS): () => Promise<void> | void {
  let since = performance.now();
  return () => {
    const now = performance.now();
    if (now - since < sliceMs) return;
    return yieldToEventLoop().then(() => {
      since = performance.now();
    });
  };
}

/** The longest stretch of synchronous work between two yields. */
export const DEFAULT_SLICE_MS = 10;

/** One macrotask: pending I/O callbacks and timers run before the caller continues (microtasks would not let them). */
export function yieldToEventLoop(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}
