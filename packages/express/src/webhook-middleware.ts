import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Receiver } from '@sms-webhooks/core';
import {
  createNodeHandler,
  type NodeExchange,
  type ReceiverResponse,
  writeNodeResponse,
} from '@sms-webhooks/core/adapter';

/**
 * What the middleware reads from Express's request: Node's message plus what body parsers leave on it,
 * `body` (`express.raw()`'s bytes) and `rawBody` (the bytes Google Cloud Functions and Firebase keep after
 * parsing, as does a `verify` callback that saves them). `rawBody` is left open: frameworks declare it on
 * Node's message with types of their own (a Buffer, or @koa/bodyparser's string).
 */
export type WebhookRequest = Readable &
  Pick<IncomingMessage, 'method' | 'headers'> & {
    /** What a body parser left, when one ran first: only `express.raw()`'s bytes can be verified. */
    body?: unknown;
    /** The raw bytes a platform kept after parsing (Google Cloud Functions, Firebase). */
    rawBody?: unknown;
    /** The route's parameters (`/webhooks/sms/:tenant`), handed to the receiver for a `secret` function. */
    params?: Record<string, string | string[] | undefined>;
    /** The URL as requested (`req.url` inside a router lacks the mount path): a `secret` function sees its path. */
    originalUrl?: string;
  };
/** Express's `next`: called only when the request is not the webhook's (another method or path). */
export type WebhookNext = (error?: unknown) => void;
/** The middleware {@link webhookMiddleware} returns: mount it on the webhook's `POST` route. */
export type WebhookRequestHandler = (req: WebhookRequest, res: ServerResponse, next: WebhookNext) => void;

/** A class rather than an object of closures: one is made per request. */
class ExpressExchange implements NodeExchange {
  constructor(
    readonly res: ServerResponse,
    readonly keptBody: unknown,
    readonly params: Record<string, string | string[] | undefined> | undefined,
    readonly url: string | undefined,
  ) {}

  write(answer: ReceiverResponse): void {
    writeNodeResponse(this.res, answer);
  }

  takeOver(): ServerResponse {
    return this.res;
  }
}

/**
 * `app.post('/webhooks', webhookMiddleware(receiver))`: core reads the raw body (or takes the bytes
 * `express.raw()` or Google Cloud Functions kept), lets the receiver decide, and this writes its answer.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { createReceiver } from '@sms-webhooks/core';
 * import { webhookMiddleware } from '@sms-webhooks/express';
 *
 * const receiver = createReceiver({ secret: process.env.SMS_WEBHOOK_SECRET! });
 * receiver.on('message.delivered', (event) => console.log(event.data.id, 'delivered'));
 *
 * const app = express();
 * app.all('/webhooks/sms', webhookMiddleware(receiver)); // before express.json(): it needs the raw body
 * app.listen(3000);
 * ```
 */
export function webhookMiddleware(receiver: Receiver): WebhookRequestHandler {
  const handle = createNodeHandler(receiver, {
    name: '@sms-webhooks/express',
    howToFix:
      "Mount the webhook route before express.json() (or exclude its path from it), or give it express.raw({ type: '*/*' }).",
  });
  return (req, res, next) => {
    // The exact bytes when a platform kept them beside the body it parsed; else what a parser left in body.
    const kept = req.rawBody instanceof Uint8Array ? req.rawBody : req.body;
    // Express hands over Node's IncomingMessage; the type above only leaves rawBody's type open.
    const exchange = new ExpressExchange(res, kept, req.params, req.originalUrl);
    handle(req as IncomingMessage, exchange).catch(next);
  };
}
