import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Receiver } from '@sms-webhooks/core';
import {
  createNodeHandler,
  type NodeExchange,
  type ReceiverResponse,
  writeNodeResponse,
} from '@sms-webhooks/core/adapter';

/** What the middleware reads from Express's request: Node's message plus what body parsers leave on it. */
export type WebhookRequest = IncomingMessage & { body?: unknown };
export type WebhookNext = (error?: unknown) => void;
export type WebhookRequestHandler = (req: WebhookRequest, res: ServerResponse, next: WebhookNext) => void;

/** A class rather than an object of closures: one is made per request. */
class ExpressExchange implements NodeExchange {
  constructor(
    readonly res: ServerResponse,
    readonly keptBody: unknown,
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
 * `express.raw()` kept), lets the receiver decide, and this writes its answer.
 */
export function webhookMiddleware(receiver: Receiver): WebhookRequestHandler {
  const handle = createNodeHandler(receiver, {
    name: '@sms-webhooks/express',
    howToFix:
      "Mount the webhook route before express.json() (or exclude its path from it), or give it express.raw({ type: '*/*' }).",
  });
  return (req, res, next) => {
    handle(req, new ExpressExchange(res, req.body)).catch(next);
  };
}
