import {
  errorResponse,
  METHOD_NOT_ALLOWED,
  payloadTooLarge,
  RAW_BODY_UNAVAILABLE,
  type Receiver,
  type ReceiverResponse,
} from '@sms-webhooks/core';
import { readBody } from './read-body.js';

export type WaitUntil = (promise: Promise<unknown>) => void;

export interface WebhookHandlerOptions {
  /**
   * Keeps a serverless function alive until the handlers of an accepted event finish ('immediately'
   * mode): e.g. `waitUntil` from `@vercel/functions`. A per-request `waitUntil` (the handler's second
   * argument, such as Cloudflare's `ctx`) takes precedence.
   */
  waitUntil?: WaitUntil;
}

/**
 * The second argument platforms pass to a fetch handler (Cloudflare's ctx, Next's { params }, Deno's
 * info, Bun's server). Typed `unknown` so any of them fits; only a `waitUntil` function on it is used.
 */
export type PlatformContext = unknown;

export type WebHandler = (request: Request, context?: PlatformContext) => Promise<Response>;

export const BODY_USED_HINT =
  'sms-webhooks: the request body was already read before the webhook handler, so its signature cannot be checked. ' +
  'Pass the untouched Request (in Hono: c.req.raw, without calling c.req.json() or a body validator first).';

const UNREADABLE = errorResponse(400, 'payload_invalid', 'The request body could not be read.');
const CLOSE = { connection: 'close' };

function toResponse(res: ReceiverResponse): Response {
  return new Response(res.body, { status: res.status, headers: res.headers });
}

function pickWaitUntil(context: PlatformContext, fallback?: WaitUntil): WaitUntil | undefined {
  const own = (context as { waitUntil?: unknown } | null | undefined)?.waitUntil;
  if (typeof own === 'function') return (promise) => own.call(context, promise);
  return fallback;
}

/**
 * A Web-standard `(request) => Promise<Response>` for Hono, Next.js route handlers (Node.js runtime),
 * Bun, Deno and Cloudflare Workers (`nodejs_compat`): core needs node:crypto, Buffer and setImmediate.
 * All HTTP policy (statuses, bodies) comes from the receiver.
 */
export function webhookHandler(receiver: Receiver, options: WebhookHandlerOptions = {}): WebHandler {
  if (typeof receiver?.handle !== 'function') {
    throw new TypeError(
      '@sms-webhooks/web: webhookHandler(receiver) needs a receiver from createReceiver().',
    );
  }
  if (options.waitUntil !== undefined && typeof options.waitUntil !== 'function') {
    throw new TypeError('@sms-webhooks/web: `waitUntil` must be a function such as ctx.waitUntil.');
  }
  const { maxBodyBytes, bodyTimeoutMs, logger } = receiver.options;
  const timedOut = errorResponse(
    408,
    'request_timeout',
    `The body did not arrive within ${bodyTimeoutMs} ms.`,
    CLOSE,
  );

  return async (request, context) => {
    if (request.method !== 'POST') {
      request.body?.cancel().catch(() => {});
      return toResponse(METHOD_NOT_ALLOWED);
    }
    const read = await readBody(request, maxBodyBytes, bodyTimeoutMs);
    if (!read.ok) {
      if (read.reason === 'too-large') return toResponse(payloadTooLarge(maxBodyBytes));
      if (read.reason === 'timed-out') return toResponse(timedOut);
      if (read.reason === 'unreadable') return toResponse(UNREADABLE);
      logger.error(BODY_USED_HINT);
      return toResponse(RAW_BODY_UNAVAILABLE);
    }
    const waitUntil = pickWaitUntil(context, options.waitUntil);
    const res = await receiver.handle({ rawBody: read.body, headers: request.headers, waitUntil });
    return toResponse(res);
  };
}
