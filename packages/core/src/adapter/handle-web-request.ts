import { internalError } from './internal-error.js';
import { readWebBody } from './read-web-body.js';
import { type Receiver, refuse } from '../receiver/receiver.js';
import {
  errorResponse,
  METHOD_NOT_ALLOWED,
  payloadTooLarge,
  RAW_BODY_UNAVAILABLE,
  type ReceiverResponse,
} from '../receiver/responses.js';

/** A platform's keep-alive for work after the response (Workers' `ctx.waitUntil`, Vercel's `waitUntil`). */
export type WaitUntil = (promise: Promise<unknown>) => void;

export interface WebRequestOptions {
  /** Given the background handler run of an accepted event ('immediately' mode). */
  waitUntil?: WaitUntil;
}

export const BODY_USED_HINT =
  'sms-webhooks: the request body was already read before the webhook handler, so its signature cannot be checked. ' +
  'Pass the untouched Request (in Hono: c.req.raw, without calling c.req.json() or a body validator first).';

const UNREADABLE = errorResponse(400, 'payload_invalid', 'The request body could not be read.');
const CLOSE = { connection: 'close' };

/** Receivers whose log already has the hint: it says the same thing for every request, so once is enough. */
const hinted = new WeakSet<Receiver>();

function toResponse(res: ReceiverResponse): Response {
  return new Response(res.body, { status: res.status, headers: res.headers });
}

function refusal(
  receiver: Receiver,
  reason: 'too-large' | 'timed-out' | 'unreadable' | 'already-used',
): ReceiverResponse {
  const { maxBodyBytes, bodyTimeoutMs, logger } = receiver.options;
  switch (reason) {
    case 'too-large':
      return payloadTooLarge(maxBodyBytes);
    case 'timed-out':
      return errorResponse(
        408,
        'request_timeout',
        `The body did not arrive within ${bodyTimeoutMs} ms.`,
        CLOSE,
      );
    case 'unreadable':
      return UNREADABLE;
    case 'already-used':
      if (!hinted.has(receiver)) {
        hinted.add(receiver);
        logger.error(BODY_USED_HINT);
      }
      return RAW_BODY_UNAVAILABLE;
  }
}

/**
 * The Web entry point: one `Request` in, one `Response` out, with Web APIs only (Workers, Deno, Bun,
 * Vercel Edge, Next.js, Hono). It owns the method check, the bounded read (limit, declared length,
 * time-out) and every answer; the receiver owns verification and everything after.
 */
export async function handleWebRequest(
  receiver: Receiver,
  request: Request,
  options: WebRequestOptions = {},
): Promise<Response> {
  if (request.method !== 'POST') {
    request.body?.cancel().catch(() => {});
    return toResponse(refuse(receiver, METHOD_NOT_ALLOWED));
  }
  const { maxBodyBytes, bodyTimeoutMs } = receiver.options;
  const read = await readWebBody(request, maxBodyBytes, bodyTimeoutMs);
  if ('refused' in read) return toResponse(refuse(receiver, refusal(receiver, read.refused)));
  const res = await receiver
    .handle({ rawBody: read.body, headers: request.headers, waitUntil: options.waitUntil })
    .catch((error: unknown) => internalError(receiver, error));
  return toResponse(res);
}
