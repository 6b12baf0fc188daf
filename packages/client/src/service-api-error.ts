/** One refused field of a 422 `validation_error`, from the service or the client's own check. */
export interface FieldError {
  /** The input's field: `url`, `events`, `description`. */
  field: string;
  /** What is wrong with it, e.g. `must be at most 500 characters`. */
  message: string;
}

/**
 * Every failure of the client. `status` is the HTTP status, or 0 when no response came back
 * (`network_error`, `timeout`). Inputs refused before sending carry status 422 and code
 * `validation_error`, like the service's own answer, with `sent: false`.
 */
export class ServiceApiError extends Error {
  /** The HTTP status, or 0 when no response came back. */
  readonly status: number;
  /**
   * Stable: the service's `error.code`, else one from the status (`unauthorized`, `not_found`,
   * `validation_error`, `rate_limited`, `http_error`), or `network_error`, `timeout`, `invalid_response`.
   */
  readonly code: string;
  /** The refused fields of a 422, when the answer lists them. */
  readonly details: FieldError[] | undefined;
  /** Seconds, from `Retry-After` on a 429 the client gave up waiting for. */
  readonly retryAfter: number | undefined;
  /** False when the client refused the input without a request. */
  readonly sent: boolean;

  constructor(
    message: string,
    init: {
      status: number;
      code: string;
      details?: FieldError[];
      retryAfter?: number;
      sent?: boolean;
      cause?: unknown;
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ServiceApiError';
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.retryAfter = init.retryAfter;
    this.sent = init.sent ?? true;
  }
}

/** Works across copies of the package, where `instanceof` does not. */
export function isServiceApiError(error: unknown): error is ServiceApiError {
  return (
    error instanceof Error &&
    error.name === 'ServiceApiError' &&
    typeof (error as { code?: unknown }).code === 'string'
  );
}
