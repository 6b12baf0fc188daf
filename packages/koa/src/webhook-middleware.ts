import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Receiver } from '@sms-webhooks/core';
import { createNodeHandler, type NodeExchange, type ReceiverResponse } from '@sms-webhooks/core/adapter';
import { optionError } from '@sms-webhooks/internal';

/** The part of Koa's context the middleware uses; Koa 2 and 3 (and @koa/router's context) all fit. */
export interface WebhookContext {
  /** Node's request: the body is read from it unless a body parser kept `request.rawBody`. */
  req: IncomingMessage;
  /** Node's response, written directly only when core takes the answer over. */
  res: ServerResponse;
  /** Set to false when core writes the answer on `res` itself. */
  respond?: boolean;
  /** `@koa/bodyparser`'s kept raw body (`enableRawChecking`), when it ran first. */
  request: { rawBody?: unknown };
  /** Compared with the `path` option, when one is given. */
  path: string;
  /** @koa/router's route parameters (`/webhooks/sms/:tenant`), for a receiver's `secret` function. */
  params?: Record<string, string | undefined>;
  /** The URL as requested (`req.url` inside a router lacks the mount path): a `secret` function sees its path. */
  originalUrl?: string;
  /** Set to the receiver's answer's status. */
  status: number;
  /** Set to the receiver's answer's body. */
  body: unknown;
  /** Sets the receiver's answer's headers. */
  set(field: Record<string, string>): void;
}

/** Options of the Koa {@link webhookMiddleware}. */
export interface WebhookMiddlewareOptions {
  /** Only for `app.use()` without a router: the path to answer on; other paths go to `next()`. */
  path?: string;
}

/** A class rather than an object of closures: one is made per request. */
class KoaExchange implements NodeExchange {
  constructor(readonly ctx: WebhookContext) {}

  get keptBody(): unknown {
    return this.ctx.request.rawBody;
  }

  get params(): Record<string, string | undefined> | undefined {
    return this.ctx.params;
  }

  get url(): string | undefined {
    return this.ctx.originalUrl;
  }

  write(answer: ReceiverResponse): void {
    this.ctx.status = answer.status;
    this.ctx.set(answer.headers);
    this.ctx.body = answer.body;
  }

  takeOver(): ServerResponse {
    this.ctx.respond = false;
    return this.ctx.res;
  }
}

/** The Koa middleware {@link webhookMiddleware} returns. */
export type WebhookKoaMiddleware = (ctx: WebhookContext, next: () => Promise<unknown>) => Promise<void>;

/**
 * `router.post('/webhooks', webhookMiddleware(receiver))`: core reads `ctx.req` (or takes the raw body
 * `@koa/bodyparser` kept in `ctx.request.rawBody`), and this sets the receiver's answer on `ctx`.
 *
 * @example
 * ```ts
 * import Router from '@koa/router';
 * import Koa from 'koa';
 * import { createReceiver } from '@sms-webhooks/core';
 * import { webhookMiddleware } from '@sms-webhooks/koa';
 *
 * const receiver = createReceiver({ secret: process.env.SMS_WEBHOOK_SECRET! });
 * receiver.on('message.replied', (event) => console.log('reply from', event.data.to));
 *
 * const router = new Router();
 * router.all('/webhooks/sms', webhookMiddleware(receiver)); // all(): a GET is answered 405
 * new Koa().use(router.routes()).listen(3000);
 * ```
 */
export function webhookMiddleware(
  receiver: Receiver,
  options: WebhookMiddlewareOptions = {},
): WebhookKoaMiddleware {
  const { path } = options;
  if (path !== undefined && (typeof path !== 'string' || !path.startsWith('/'))) {
    throw optionError('@sms-webhooks/koa', `\`path\` must start with '/', got ${JSON.stringify(path)}.`);
  }
  const handle = createNodeHandler(receiver, {
    name: '@sms-webhooks/koa',
    howToFix:
      'Put webhookMiddleware before the body parser, or use @koa/bodyparser, which keeps ctx.request.rawBody.',
  });
  return async (ctx, next) => {
    if (path !== undefined && ctx.path !== path) return void (await next());
    await handle(ctx.req, new KoaExchange(ctx));
  };
}
