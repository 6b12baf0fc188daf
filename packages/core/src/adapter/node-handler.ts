import type { IncomingMessage, ServerResponse } from 'node:http';
import getRawBody from 'raw-body';
import { type Clock, systemClock } from '../base/clock.js';
import { firstTime } from '../base/log-once.js';
import type { Receiver } from '../receiver/receiver.js';
import { type ReceiverResponse, rawBodyHint } from '../receiver/responses.js';
import { isRawBody } from '../verify/parse-event.js';
import { answerRefusal } from './answer-refusal.js';
import { checkReceiver } from './check-receiver.js';
import type { BodyRead, EntryRefusal } from './entry-refusal.js';
import { refuseEntry } from './entry-refusal.js';
import { internalError } from './internal-error.js';

/** What an adapter tells the Node entry about one request. */
export interface NodeExchange {
  /** The body a framework's parser already read and kept as bytes or text (`express.raw()`'s `req.body`). */
  keptBody?: unknown;
  /** The route's parameters (`/webhooks/sms/:tenant` gives `{ tenant }`), for a receiver's `secret` function. */
  params?: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The whole request target when `req.url` is not (Express inside a router: `req.originalUrl`). */
  url?: string;
  /** Writes an answer through the framework; called at most once, and not at all when the client went away. */
  write(response: ReceiverResponse): void;
  /**
   * Hands over Node's own response for the answer to a refused body (413, 408), which must go out while
   * the body is still arriving and end only after it: in Koa, `ctx.respond = false`; in Fastify,
   * `reply.hijack()`. Then `write` is not called.
   */
  takeOver(): ServerResponse;
}

/** Who is calling {@link createNodeHandler}: named in its errors and in the hint for a consumed body. */
export interface NodeHandlerOptions {
  /** The adapter's package name, which starts its errors. */
  name: string;
  /** The framework's own remedy, logged once when another body parser consumed the body first. */
  howToFix: string;
}

/**
 * Handles one Node request for an adapter: reads the body (or takes the one the framework kept), runs the
 * receiver, and writes the answer through `exchange`. Never rejects: every failure is an answer.
 */
export type NodeHandler = (req: IncomingMessage, exchange: NodeExchange) => Promise<void>;

/**
 * The Node entry in the parts a framework that reads the body itself calls (Fastify's content-type
 * parser under its `bodyLimit`): the same answers as `createNodeHandler`, which is built from them.
 */
export interface NodeEntry {
  /** Before the body is read: 405 to a method other than POST, 503 `overloaded`; undefined to read on. */
  refuseEarly(req: IncomingMessage): ReceiverResponse | undefined;
  /** The answer to a refusal that needs no drain ('already-used' logs the adapter's remedy once). */
  refuse(reason: EntryRefusal): ReceiverResponse;
  /** Starts the body's `bodyTimeoutMs` on the receiver's clock: `onTimeout` runs unless cancelled first. */
  startBodyTimer(onTimeout: () => void): () => void;
  /** `receiver.handle` on the whole body; its own failure is answered 500 internal_error. */
  handle(
    rawBody: unknown,
    req: IncomingMessage,
    where: Pick<NodeExchange, 'params' | 'url'>,
  ): Promise<ReceiverResponse>;
  /**
   * Answers a body refused while it was read ('too-large', 'timed-out', 'unreadable') on Node's own
   * response: a 413 reads and drops the rest of the body for a bounded while, so the client sees it.
   */
  refuseBody(req: IncomingMessage, res: ServerResponse, reason: EntryRefusal): Promise<void>;
}

/** The parts of the Node entry, for an adapter whose framework reads the body (see NodeEntry). */
export function createNodeEntry(receiver: Receiver, options: NodeHandlerOptions): NodeEntry {
  checkReceiver(options.name, receiver);
  const hint = rawBodyHint(options.howToFix);
  const clock = receiver.options.clock ?? systemClock;
  return {
    refuseEarly(req) {
      if (req.method !== 'POST') return refuseEntry(receiver, 'method', hint);
      // At maxConcurrency with a full wait list: answered unread (Node reads and drops the rest of the body).
      return receiver.overloaded?.();
    },
    refuse: (reason) => refuseEntry(receiver, reason, hint),
    startBodyTimer: (onTimeout) => clock.setTimer(onTimeout, receiver.options.bodyTimeoutMs),
    handle: (rawBody, req, where) =>
      receiver
        .handle({ rawBody, headers: req.headers, params: where.params, url: where.url ?? req.url })
        .catch((error: unknown) => internalError(receiver, error)),
    refuseBody: (req, res, reason) => answerRefusal(req, res, refuseEntry(receiver, reason, hint)),
  };
}

/**
 * The one Node entry every adapter calls: method check, kept or consumed body, bounded read with its
 * time-out, every error answer and the drain after a refusal, then `receiver.handle` (whose own failure is
 * answered 500 internal_error too). Adapters only say where a kept body is and how to write.
 */
export function createNodeHandler(receiver: Receiver, options: NodeHandlerOptions): NodeHandler {
  checkReceiver(options.name, receiver);
  const entry = createNodeEntry(receiver, options);
  const hint = rawBodyHint(options.howToFix);

  return async (req, exchange) => {
    const early = entry.refuseEarly(req);
    if (early !== undefined) return exchange.write(early);
    if (isRawBody(exchange.keptBody)) {
      if (isEncoded(req) && firstTime(receiver, 'decoded body hint')) {
        receiver.options.logger.warn(
          `sms-webhooks: the webhook body was decompressed (content-encoding: ${req.headers['content-encoding']}) by a body parser that ran before the webhook route, so an unauthenticated request was inflated and parsed before its signature was checked, and the signature was checked on the decompressed bytes. ${options.howToFix}`,
        );
      }
      // receiver.handle checks the limit on it again
      return exchange.write(await entry.handle(exchange.keptBody, req, exchange));
    }
    if (req.readableEnded || !req.readable) {
      // Another parser read the stream: reading again would wait for an 'end' that already happened.
      return exchange.write(refuseEntry(receiver, 'already-used', hint));
    }
    const read = await readNodeBody(req, receiver.options);
    if ('aborted' in read) return;
    if ('refused' in read) return entry.refuseBody(req, exchange.takeOver(), read.refused);
    exchange.write(await entry.handle(read.body, req, exchange));
  };
}

function isEncoded(req: IncomingMessage): boolean {
  const encoding = req.headers['content-encoding']?.trim().toLowerCase();
  return encoding !== undefined && encoding !== '' && encoding !== 'identity';
}

/** `exchange.write` for a plain `ServerResponse` (Express, `node:http`). */
export function writeNodeResponse(res: ServerResponse, response: ReceiverResponse): void {
  res.writeHead(response.status, response.headers);
  res.end(response.body);
}

export interface NodeBodyLimits {
  maxBodyBytes: number;
  bodyTimeoutMs: number;
  clock?: Clock;
}

/** A refusal ('too-large', 'timed-out') leaves the rest of the body on the wire, for the answer to drain. */
export type NodeBodyResult = BodyRead<Buffer>;

/** raw-body's error types, as the entry's refusals. */
function refusalOf(error: { type?: string }): EntryRefusal | 'aborted' {
  switch (error.type) {
    case 'entity.too.large':
      return 'too-large';
    case 'request.aborted':
      return 'aborted';
    case 'stream.not.readable':
      return 'already-used';
    default:
      return 'unreadable';
  }
}

/**
 * Reads a request body with `raw-body` under the limits: a declared length over the limit is refused
 * unread, a body that crosses it the moment it does, and one that has not arrived within `bodyTimeoutMs`
 * (a client trickling bytes) gets 408. raw-body has no time-out, and on Node a client that goes away can
 * close the request without the 'aborted' it listens for: both are watched here.
 */
export function readNodeBody(req: IncomingMessage, limits: NodeBodyLimits): Promise<NodeBodyResult> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: NodeBodyResult) => {
      if (settled) return;
      settled = true;
      cancel();
      req.off('close', onClose);
      // Paused until the refusal's drain reads on; a whole body has nothing left.
      if (!('body' in result)) req.pause();
      resolve(result);
    };
    const onClose = () => {
      if (!req.complete) settle({ aborted: true });
    };
    const clock = limits.clock ?? systemClock;
    const cancel = clock.setTimer(() => settle({ refused: 'timed-out' }), limits.bodyTimeoutMs);
    req.on('close', onClose);
    getRawBody(req, { length: req.headers['content-length'], limit: limits.maxBodyBytes }, (error, body) => {
      if (!error) return settle({ body });
      const refusal = refusalOf(error as { type?: string });
      settle(refusal === 'aborted' ? { aborted: true } : { refused: refusal });
    });
  });
}
