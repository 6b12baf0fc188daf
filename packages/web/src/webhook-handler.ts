import type { Receiver } from '@sms-webhooks/core';
import { checkReceiver, handleWebRequest, type WaitUntil } from '@sms-webhooks/core/adapter';
import { optionError } from '@sms-webhooks/internal';

export type { WaitUntil };

/** Options of {@link webhookHandler}, for the platforms that need them. */
export interface WebhookHandlerOptions {
  /**
   * Keeps a serverless function alive until the handlers of an accepted event finish ('immediately'
   * mode): e.g. `waitUntil` from `@vercel/functions`. A per-request `waitUntil` (the handler's second
   * argument, such as Cloudflare's `ctx`) takes precedence.
   */
  waitUntil?: WaitUntil;
  /**
   * The route's parameters for a receiver whose `secret` is a function of the request, when the platform
   * does not pass them as `context.params` (Next.js does, as Hono's `c.req.param()` can): e.g.
   * `(request) => pattern.exec(request.url)?.pathname.groups` with a `URLPattern`, or a function of the path.
   */
  params?: (request: Request, context: PlatformContext) => RouteParams | undefined;
}

/** A route's parameters by name (`/webhooks/sms/:tenant` gives `{ tenant }`). */
export type RouteParams = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * The second argument platforms pass to a fetch handler (Cloudflare's ctx, Next's { params }, Deno's
 * info, Bun's server). Typed `unknown` so any of them fits; only a `waitUntil` function and `params` (an
 * object, or Next.js 15's promise of one) on it are used.
 */
export type PlatformContext = unknown;

/**
 * A fetch-style handler, from {@link webhookHandler}: give it the platform's `Request` (and, on Cloudflare,
 * its `ctx` with `waitUntil`); it resolves with the receiver's answer as a `Response` and never rejects.
 */
export type WebHandler = (request: Request, context?: PlatformContext) => Promise<Response>;

function pickWaitUntil(context: PlatformContext, fallback?: WaitUntil): WaitUntil | undefined {
  const own = (context as { waitUntil?: unknown } | null | undefined)?.waitUntil;
  if (typeof own === 'function') return (promise) => own.call(context, promise);
  return fallback;
}

/**
 * A Web-standard `(request, context?) => Promise<Response>`; core's handleWebRequest does the rest.
 * Runs wherever `Request`/`Response` do: Hono, Next.js, Bun, Deno, Cloudflare Workers, Vercel Edge.
 *
 * @example
 * ```ts
 * import { createReceiver } from '@sms-webhooks/core';
 * import { webhookHandler } from '@sms-webhooks/web';
 *
 * const receiver = createReceiver({ secret: process.env.SMS_WEBHOOK_SECRET! });
 * receiver.on('message.delivered', (event) => console.log(event.data.id, 'delivered'));
 *
 * // Next.js (app/webhooks/sms/route.ts), or Hono: app.post('/webhooks/sms', (c) => handler(c.req.raw))
 * export const POST = webhookHandler(receiver);
 * ```
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
  const paramsOf = options.params;
  if (paramsOf !== undefined && typeof paramsOf !== 'function') {
    throw optionError(
      '@sms-webhooks/web',
      '`params` must be a function of the request that returns the route parameters, such as (request) => pattern.exec(request.url)?.pathname.groups.',
    );
  }
  return (request, context) => {
    const waitUntil = pickWaitUntil(context, options.waitUntil);
    const params =
      paramsOf?.(request, context) ?? (context as { params?: unknown } | null | undefined)?.params;
    if (params === undefined || params === null) return handleWebRequest(receiver, request, { waitUntil });
    if (typeof (params as PromiseLike<unknown>).then !== 'function') {
      return handleWebRequest(receiver, request, { waitUntil, params: params as RouteParams });
    }
    return Promise.resolve(params as PromiseLike<RouteParams | undefined>).then((resolved) =>
      handleWebRequest(receiver, request, { waitUntil, params: resolved ?? undefined }),
    );
  };
}
