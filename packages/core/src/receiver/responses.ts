import { type ResponseErrorCode, STATUS } from '../verify/errors.js';

/** What an adapter writes back: status, headers and a JSON body, ready to send. */
export interface ReceiverResponse {
  /** The HTTP status: 200, or the error's (400, 401, 409, 413, 422, 500, 503 …). */
  status: number;
  /** Headers to set: the content type, and `Retry-After` on a 503. */
  headers: Readonly<Record<string, string>>;
  /** The JSON text to write. */
  body: string;
  /**
   * The same body as a value, for frameworks that serialize and set the JSON content type themselves
   * (Fastify parses a content-type header set by hand on every reply; a value skips that).
   */
  json: object;
}

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json; charset=utf-8' });

function ok(json: object): ReceiverResponse {
  return Object.freeze({ status: 200, headers: JSON_HEADERS, body: JSON.stringify(json), json });
}

export const RECEIVED = ok({ received: true });
export const IGNORED = ok({ received: true, ignored: true });
export const DUPLICATE = ok({ received: true, duplicate: true });
/** An event older than the newest one completed for its object (`order`): acknowledged, not handled. */
export const STALE = ok({ received: true, stale: true });

/** Headers a refusal always carries: what the client must know to retry or to stop. */
const REFUSAL_HEADERS: Partial<Record<ResponseErrorCode, Record<string, string>>> = {
  method_not_allowed: { allow: 'POST' },
  // The body trickles, so waiting longer helps no one: the connection closes after the answer.
  request_timeout: { connection: 'close' },
  // The store (or the hand-off) failed: the service retries in 30 s or later.
  store_unavailable: { 'retry-after': '30' },
  // The `secret` function failed (its database is down): the same wait.
  secret_unavailable: { 'retry-after': '30' },
  // Every handler slot and wait-list place is taken (maxConcurrency): a burst passes in seconds.
  overloaded: { 'retry-after': '10' },
};

/** A refusal's answer: its status from the one table (errors.ts), and `{"error":{code,message}}`. */
export function refusal(
  code: ResponseErrorCode,
  message: string,
  headers?: Record<string, string>,
): ReceiverResponse {
  const json = { error: { code, message } };
  return {
    status: STATUS[code],
    headers: { ...JSON_HEADERS, ...REFUSAL_HEADERS[code], ...headers },
    body: JSON.stringify(json),
    json,
  };
}

/** The one line logged when the raw body is gone; `howToFix` is the framework's own remedy. */
export function rawBodyHint(howToFix: string): string {
  return `sms-webhooks: the request body was already parsed by another body parser, so its signature cannot be checked. ${howToFix}`;
}

export const RAW_BODY_HINT = rawBodyHint(
  'Hand receiver.handle() the body exactly as received (a Buffer, Uint8Array or string), not a parsed object.',
);

export const RAW_BODY_UNAVAILABLE = refusal(
  'raw_body_unavailable',
  'The raw request body was consumed by another body parser before the webhook route; see the server log.',
);

export function payloadTooLarge(maxBodyBytes: number): ReceiverResponse {
  return refusal('payload_too_large', `Body is larger than the limit of ${maxBodyBytes} bytes.`);
}

/** The answer when `receiver.handle` itself fails: a bug, whose message stays in the log, not in the body. */
export const INTERNAL_ERROR = refusal(
  'internal_error',
  'The webhook receiver failed unexpectedly; see the server log.',
);
