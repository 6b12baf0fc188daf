import type { IncomingMessage, ServerResponse } from 'node:http';
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
  "Mount the webhook route before express.json() (or exclude its path from it), or give it express.raw({ type: '*/*' }).",
);

/** What the middleware reads from Express's request: Node's message plus what body parsers leave on it. */
export type WebhookRequest = IncomingMessage & { body?: unknown; _body?: unknown };
export type WebhookNext = (error?: unknown) => void;
export type WebhookRequestHandler = (req: WebhookRequest, res: ServerResponse, next: WebhookNext) => void;

function write(res: ServerResponse, response: ReceiverResponse): void {
  res.writeHead(response.status, response.headers);
  res.end(response.body);
}

/**
 * `app.post('/webhooks', webhookMiddleware(receiver))`: reads the raw body (or takes the Buffer
 * `express.raw()` left), lets `receiver.handle` decide, and writes its answer. Mounted with `app.all`
 * or `app.use`, other methods get 405.
 */
export function webhookMiddleware(receiver: Receiver): WebhookRequestHandler {
  if (typeof receiver?.handle !== 'function' || typeof receiver.options?.maxBodyBytes !== 'number') {
    throw new TypeError(
      '@sms-webhooks/express: webhookMiddleware(receiver) needs a receiver from createReceiver().',
    );
  }
  let hinted = false;

  async function run(req: WebhookRequest, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return write(res, METHOD_NOT_ALLOWED);

    let rawBody: Buffer | string;
    if (Buffer.isBuffer(req.body) || typeof req.body === 'string') {
      rawBody = req.body; // express.raw() / express.text() kept the bytes; core checks the limit again
    } else if (requestBodyConsumed(req)) {
      if (!hinted) {
        hinted = true;
        receiver.options.logger.error(HINT);
      }
      return write(res, RAW_BODY_UNAVAILABLE);
    } else {
      const read = await readRequestBody(req, receiver.options);
      if ('aborted' in read) return void res.destroy();
      if ('refused' in read) return write(res, read.refused);
      rawBody = read.body;
    }
    write(res, await receiver.handle({ rawBody, headers: req.headers }));
  }

  return (req, res, next) => {
    run(req, res).catch(next);
  };
}
