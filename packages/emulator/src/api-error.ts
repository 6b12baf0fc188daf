/** Error codes the emulator answers with. The spec names `not_found`, `validation_error`, `rate_limited`. */
export type ApiErrorCode =
  | 'unauthorized'
  | 'not_found'
  | 'validation_error'
  | 'rate_limited'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'host_not_allowed'
  | 'origin_not_allowed'
  | 'unsupported_media_type';

/** One refused field in a 422 `validation_error`'s `details`. */
export interface FieldError {
  /** The request body's field, e.g. `url`. */
  field: string;
  /** What is wrong with it. */
  message: string;
}

/** Thrown inside route handlers; the server turns it into `{"error":{"code","message","details"?}}`. */
export class ApiError extends Error {
  constructor(
    /** The HTTP status to answer with. */
    readonly status: number,
    /** The body's `error.code`. */
    readonly code: ApiErrorCode,
    message: string,
    /** The refused fields of a 422. */
    readonly details?: FieldError[],
    /** Extra response headers, e.g. `Retry-After` on a 429. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The JSON body the server answers with: `{"error":{"code","message","details"?}}`. */
  toBody(): { error: { code: ApiErrorCode; message: string; details?: FieldError[] } } {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details ? { details: this.details } : {}),
      },
    };
  }
}

export function validationError(details: FieldError[]): ApiError {
  const summary = details.map((d) => `${d.field}: ${d.message}`).join('; ');
  return new ApiError(422, 'validation_error', `Invalid input: ${summary}`, details);
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
