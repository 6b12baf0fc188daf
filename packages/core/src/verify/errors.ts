/** Codes of deliveries that are refused before any handler runs. Stable: match on these, not on messages. */
export type VerificationErrorCode =
  | 'signature_missing'
  | 'signature_malformed'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch'
  | 'payload_invalid'
  | 'header_mismatch'
  | 'payload_too_large'
  | 'unknown_tenant'
  | 'secret_unavailable';

export type ResponseErrorCode =
  | VerificationErrorCode
  | 'in_flight'
  | 'payload_schema_mismatch'
  | 'handler_failed'
  | 'store_unavailable'
  | 'overloaded'
  | 'raw_body_unavailable'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'internal_error';

/** The status of each verification refusal; its keys are the codes `isWebhookVerificationError` accepts. */
const VERIFICATION_STATUS: Readonly<Record<VerificationErrorCode, number>> = {
  signature_missing: 400,
  signature_malformed: 400,
  timestamp_out_of_tolerance: 400,
  signature_mismatch: 400,
  payload_invalid: 400,
  header_mismatch: 400,
  payload_too_large: 413,
  unknown_tenant: 404,
  secret_unavailable: 503,
};

const VERIFICATION_CODES = new Set<string>(Object.keys(VERIFICATION_STATUS));

/** The one table from a refused delivery's code to its HTTP status, for every answer that is not 200. */
export const STATUS: Readonly<Record<ResponseErrorCode, number>> = {
  ...VERIFICATION_STATUS,
  method_not_allowed: 405,
  request_timeout: 408,
  in_flight: 409,
  payload_schema_mismatch: 422,
  handler_failed: 500,
  raw_body_unavailable: 500,
  internal_error: 500,
  store_unavailable: 503,
  overloaded: 503,
};

/**
 * Thrown by `verifyWebhook` and friends. Messages never contain a secret or an expected signature.
 * Check `error.code` (or `isWebhookVerificationError`) rather than `instanceof`: two copies of this
 * package (ESM and CJS, or two versions) have two classes.
 */
export class WebhookVerificationError extends Error {
  /** Always `WebhookVerificationError`. */
  override readonly name = 'WebhookVerificationError';
  /** Why the delivery was refused; stable, see {@link VerificationErrorCode}. */
  readonly code: VerificationErrorCode;
  /** The status the receiver answers with for this code (400 or 401). */
  readonly status: number;
  /** What the receiver's log says of it besides the message, such as why a lookup failed (never a secret). */
  readonly detail: string | undefined;

  constructor(code: VerificationErrorCode, message: string, detail?: string) {
    super(message);
    this.code = code;
    this.status = STATUS[code];
    this.detail = detail;
  }
}

/** True for a {@link WebhookVerificationError} from any copy of the package (it checks `name` and `code`, not `instanceof`). */
export function isWebhookVerificationError(error: unknown): error is WebhookVerificationError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { name?: unknown }).name === 'WebhookVerificationError' &&
    typeof (error as { code?: unknown }).code === 'string' &&
    VERIFICATION_CODES.has((error as { code: string }).code)
  );
}
