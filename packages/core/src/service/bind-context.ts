/** An operation as implemented in `service/*.ts`: a module-level function taking the service context first. */
type Implementation<C> = (ctx: C, ...args: never[]) => unknown;

/** The service's method for an implementation: the same signature without the context (parameter names kept). */
export type Bound<C, F> = F extends (ctx: C, ...args: infer A) => infer R ? (...args: A) => R : never;

/**
 * A group of the service from its implementations: each `(ctx, organizationId, input)` function becomes the
 * `(organizationId, input)` method the service shows, bound to `ctx`. The mapped type keeps each entry's
 * documentation, so a group's factory is a table of its methods with their JSDoc, and the implementations are
 * named module-level functions. (An overloaded method is declared in its factory instead: a conditional type reads
 * only an overload's last signature.)
 */
export function bindContext<C, T extends Record<string, Implementation<C>>>(ctx: C, implementations: T): { [K in keyof T]: Bound<C, T[K]> } {
  const out: Record<string, unknown> = {};
  for (const [name, implementation] of Object.entries(implementations)) {
    const call = implementation as (ctx: C, ...args: unknown[]) => unknown; // its own arguments, passed through
    out[name] = (...args: unknown[]) => call(ctx, ...args);
  }
  // The loop binds each member of `implementations` to ctx, which is what Bound says; TypeScript cannot follow it.
  return out as { [K in keyof T]: Bound<C, T[K]> };
}
