/**
 * Exit codes of the `docevals` command (docs/cli.md, Exit codes). Stable: CI scripts branch on them.
 */
export const EXIT = {
  ok: 0,
  /** `gate`: the latest iteration is below the threshold or regressed more than allowed. */
  gateFailed: 1,
  /** Bad flags or arguments, an unreadable file, a name that matches no evaluation. */
  usage: 2,
  /** The server could not be reached, answered 5xx, or the local store failed. */
  server: 3,
  /** The server (or local service) refused the request: 401, 404, 409, 422... */
  refused: 4,
  /** `run`: the iteration ended failed or cancelled; `import`: some files or annotation rows were refused. */
  incomplete: 5,
  /** Ctrl-C: the command stopped (a `run` left its iteration running or cancelled it). */
  interrupted: 130,
} as const;

/** An error that ends the command with its exit code and message (no stack trace: it is the user's to read). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly details: unknown = undefined,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The exit code for an API error code (docs/spec/service.md, Errors). */
export function exitCodeOfApiError(code: string, status?: number): number {
  if (status !== undefined) return status >= 500 ? EXIT.server : EXIT.refused;
  return ['internal_error', 'storage_error', 'extractor_error'].includes(code) ? EXIT.server : EXIT.refused;
}
