import { DocevalsError, type Storage } from '@docevals/core';

/** A store shared by many processes (Redis, Postgres): a `Storage` (`@docevals/core`), plus the reclaiming of a crash's leftovers. */
export interface SweepingStorage<Options, Report> extends Storage {
  /**
   * Reclaims orphans a crash left behind (documents or predictions whose parent is gone, iterations no evaluation
   * lists, file reference counts no document holds) that have not changed for `olderThanMs` (default 10 minutes).
   * Safe beside live writers; run it periodically (e.g. hourly) from one server, or by hand. docs/storage.md.
   * @example setInterval(() => void storage.sweep().then((r) => console.log('swept', r)), 3_600_000).unref();
   */
  sweep(options?: Options): Promise<Report>;
}

/**
 * Checks that a shared store's options name exactly one of its two sources (the host's client or pool, or what to
 * connect to); a validation_error otherwise.
 */
export function requireOneSource(factory: string, host: { name: string; what: string; value: unknown }, own: { name: string; value: unknown }): void {
  if ((host.value === undefined) === (own.value === undefined)) {
    throw new DocevalsError('validation_error', `${factory} needs exactly one of \`${host.name}\` (${host.what}) and \`${own.name}\`.`);
  }
}
