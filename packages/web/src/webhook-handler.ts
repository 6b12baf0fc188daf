import type { Receiver } from '@sms-webhooks/core';
import { checkReceiver, handleWebRequest, type WaitUntil } from '@sms-webhooks/core/adapter';
import { optionError } from '@sms-webhooks/core/store';

export type { WaitUntil };

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

function pickWaitUntil(context: PlatformContext, fallback?: WaitUntil): WaitUntil | undefined {
  const own = (context as { waitUntil?: unknown } | null | undefined)?.waitUntil;
  if (typeof own === 'function') return (promise) => own.call(context, promise);
  return fallback;
}

/**
 * A Web-standard `(request, context?) => Promise<Response>`; core's handleWebRequest does the rest.
 * Runs wherever `Request`/`Response` do: Hono, Next.js, Bun, Deno, Cloudflare Workers, Vercel Edge.
 */
export function webhookHandler(receiver: Receiver, options: WebhookHandlerOptions = {}): WebHandler {
  checkReceiver(
    '@sms-webhooks/web',
    receiver,
    'webhookHandler(receiver) needs a receiver from createReceiver()',
  );
  if (options.waitUntil !== undefined && typeof options.waitUntil !== 'function') {
    throw optionError('@sms-webhooks/web', '`waitUntil` must be a function such as ctx.waitUntil.');
  }
  return (request, context) =>
    handleWebRequest(receiver, request, { waitUntil: pickWaitUntil(context, options.waitUntil) });
}
