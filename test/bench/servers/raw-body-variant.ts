/**
 * Issue 28 point 2: our receiver with the body read by raw-body's callback form
 * (`getRawBody(stream, opts, callback)`) in front of core's entry, which gets the bytes as a kept body
 * (what `express.raw()` leaves) and runs `receiver.handle` as the reader's result would. Only the accepted
 * path, and a lower bound on what raw-body costs: no body deadline is set or cleared, no promise wraps the
 * read, and the 413 is answered bare, without core's refusal answer and drain. raw-body inside core's
 * reader itself, with all of those, counted 2.3-5.2% more instructions per request than the hand-written
 * reader (test/bench/README.md), so core kept its own.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Receiver } from '@sms-webhooks/core';
import {
  createNodeHandler,
  type NodeExchange,
  type NodeHandler,
  type ReceiverResponse,
  writeNodeResponse,
} from '@sms-webhooks/core/adapter';
import getRawBody from 'raw-body';

export type ReadThenHandle = (
  req: IncomingMessage,
  exchange: (body: Buffer) => NodeExchange,
  refuse: (status: number) => void,
) => Promise<void>;

/** raw-body's callback form, then core's Node entry with the bytes as the kept body. */
export function rawBodyThenCore(receiver: Receiver, limit: number): ReadThenHandle {
  const handle: NodeHandler = createNodeHandler(receiver, {
    name: 'bench raw-body variant',
    howToFix: 'none (benchmark)',
  });
  return (req, exchange, refuse) =>
    new Promise<void>((resolve, reject) => {
      getRawBody(req, { limit, length: req.headers['content-length'] }, (error, body) => {
        if (error) {
          refuse((error as { status?: number }).status ?? 400);
          resolve();
          return;
        }
        handle(req, exchange(body)).then(resolve, reject);
      });
    });
}

/** The bytes raw-body read, written as the Express adapter writes (a class: one is made per request). */
export class KeptBodyExchange implements NodeExchange {
  constructor(
    readonly res: ServerResponse,
    readonly keptBody: Buffer,
  ) {}

  write(answer: ReceiverResponse): void {
    writeNodeResponse(this.res, answer);
  }

  takeOver(): ServerResponse {
    return this.res;
  }
}
