import type { IncomingMessage } from 'node:http';
import {
  METHOD_NOT_ALLOWED,
  RAW_BODY_UNAVAILABLE,
  type Receiver,
  type ReceiverResponse,
  rawBodyHint,
  readRequestBody,
  requestBodyConsumed,
} from '@sms-webhooks/core';

const HINT = rawBodyHint(
  'Put webhookMiddleware before the body parser, or use @koa/bodyparser, which keeps ctx.request.rawBody.',
);

/** The part of Koa's context the middleware uses; Koa 2 and 3 (and @koa/router's context) all fit. */
export interface WebhookContext {
  req: IncomingMessage;
  request: { rawBody?: unknown };
  method: string;
  path: string;
  status: number;
  body: unknown;
  respond?: boolean;
  set(field: Record<string, string>): void;
}

export interface WebhookMiddlewareOptions {
  /** Only for `app.use()` without a router: the path to answer on; other paths go to `next()`. */
  path?: string;
}

export type WebhookKoaMiddleware = (ctx: WebhookContext, next: () => Promise<unknown>) => Promise<void>;

function write(ctx: WebhookContext, response: ReceiverResponse): void {
  ctx.status = response.status;
  ctx.set(response.headers);
  ctx.body = response.body;
}

/**
 * `router.post('/webhooks', webhookMiddleware(receiver))`: takes the raw body @koa/bodyparser kept in
 * `ctx.request.rawBody`, or reads `ctx.req` itself with the receiver's limit, and writes what
 * `receiver.handle` answers.
 */
export function webhookMiddleware(
  receiver: Receiver,
  options: WebhookMiddlewareOptions = {},
): WebhookKoaMiddleware {
  if (typeof receiver?.handle !== 'function' || typeof receiver.options?.maxBodyBytes !== 'number') {
    throw new TypeError(
      '@sms-webhooks/koa: webhookMiddleware(receiver) needs a receiver from createReceiver().',
    );
  }
  const { path } = options;
  if (path !== undefined && (typeof path !== 'string' || !path.startsWith('/'))) {
    throw new TypeError(`@sms-webhooks/koa: \`path\` must start with '/', got ${JSON.stringify(path)}.`);
  }
  let hinted = false;

  return async function smsWebhooks(ctx, next) {
    if (path !== undefined && ctx.path !== path) {
      await next();
      return;
    }
    if (ctx.method !== 'POST') return write(ctx, METHOD_NOT_ALLOWED);

    let rawBody: string | Buffer;
    const kept = ctx.request.rawBody;
    if (typeof kept === 'string' || Buffer.isBuffer(kept)) {
      rawBody = kept; // core checks the limit on it again
    } else if (requestBodyConsumed(ctx.req)) {
      if (!hinted) {
        hinted = true;
        receiver.options.logger.error(HINT);
      }
      return write(ctx, RAW_BODY_UNAVAILABLE);
    } else {
      const read = await readRequestBody(ctx.req, receiver.options);
      if ('aborted' in read) {
        ctx.respond = false;
        ctx.req.destroy();
        return;
      }
      if ('refused' in read) return write(ctx, read.refused);
      rawBody = read.body;
    }
    write(ctx, await receiver.handle({ rawBody, headers: ctx.req.headers }));
  };
}
