/** What a {@link CliError} carries besides its message. */
export interface CliErrorOptions {
  /** Stable code for `--json` output; default `invalid_input`. */
  code?: string;
  /** An HTTP status the error is about (the app's answer to `send`), shown in `--json` output. */
  status?: number;
  /** Default 1. */
  exitCode?: number;
}

/** An error the user can fix: printed as `error: <message>` without a stack (or as JSON with `--json`). */
export class CliError extends Error {
  /** Stable, for scripts reading `--json` output (`invalid_input` unless given). */
  readonly code: string;
  /** The HTTP status the error is about, when there is one. */
  readonly status: number | undefined;
  /** The process's exit code: 1 unless given (2 for a usage mistake). */
  readonly exitCode: number;

  constructor(message: string, options: CliErrorOptions = {}) {
    super(message);
    this.name = 'CliError';
    this.code = options.code ?? 'invalid_input';
    this.status = options.status;
    this.exitCode = options.exitCode ?? 1;
  }
}
