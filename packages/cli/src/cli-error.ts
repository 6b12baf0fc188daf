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
  readonly code: string;
  readonly status: number | undefined;
  readonly exitCode: number;

  constructor(message: string, options: CliErrorOptions = {}) {
    super(message);
    this.name = 'CliError';
    this.code = options.code ?? 'invalid_input';
    this.status = options.status;
    this.exitCode = options.exitCode ?? 1;
  }
}
