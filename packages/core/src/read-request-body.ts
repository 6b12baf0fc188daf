import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { clearDeadline, setDeadline } from './deadlines.js';
import { lingerOnClose } from './linger-close.js';
import { errorResponse, payloadTooLarge, type ReceiverResponse } from './responses.js';

/** A request, or the stream a framework hands its body parsers (Fastify's, after preParsing hooks). */
export type BodyStream = Readable & Partial<Pick<IncomingMessage, 'headers' | 'socket'>>;

/** What reading a Node request body under the receiver's limits came to. */
export type RequestBodyResult =
  /** The whole body. */
  | { body: Buffer }
  /** Answer this (413 or 408, with `connection: close`); the close lingers so the client sees it. */
  | { refused: ReceiverResponse }
  /** The client went away mid-body: nobody is left to answer. */
  | { aborted: true };

export interface RequestBodyLimits {
  maxBodyBytes: number;
  bodyTimeoutMs: number;
}

const CLOSE = { connection: 'close' };

function refuse(req: BodyStream, response: ReceiverResponse): { refused: ReceiverResponse } {
  // Drop what still arrives instead of buffering it in the paused request.
  req.resume();
  lingerOnClose(req.socket);
  return { refused: { ...response, headers: { ...response.headers, ...CLOSE } } };
}

function tooLarge(req: BodyStream, limits: RequestBodyLimits) {
  return refuse(req, payloadTooLarge(limits.maxBodyBytes));
}

function timedOut(req: BodyStream, limits: RequestBodyLimits) {
  return refuse(
    req,
    errorResponse(408, 'request_timeout', `The body did not arrive within ${limits.bodyTimeoutMs} ms.`),
  );
}

/**
 * True when something before us already read the stream (express.json(), a Koa body parser, …).
 * Reading it again would wait forever for an 'end' that already happened, so we must not try.
 */
export function requestBodyConsumed(req: IncomingMessage & { _body?: unknown }): boolean {
  return req._body === true || req.readableEnded || !req.readable;
}

/**
 * Reads a Node request's body for the adapters: a declared length over the limit is refused unread,
 * a body that crosses it is refused the moment it does (nothing past the limit is kept), and a body
 * that has not fully arrived within `bodyTimeoutMs` (a client trickling bytes) is refused with 408.
 */
export function readRequestBody(req: BodyStream, limits: RequestBodyLimits): Promise<RequestBodyResult> {
  const declared = req.headers?.['content-length'];
  if (declared !== undefined && Number(declared) > limits.maxBodyBytes) {
    return Promise.resolve(tooLarge(req, limits));
  }
  // Listeners are inline and never removed: after settling they do nothing, and whatever still arrives
  // is dropped. (Named closures would each cost a defineProperty under tsx/esbuild's keepNames.)
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const deadline = setDeadline(limits.bodyTimeoutMs, () => {
      if (settled) return;
      settled = true;
      req.pause();
      resolve(timedOut(req, limits));
    });
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      received += chunk.length;
      if (received <= limits.maxBodyBytes) {
        chunks.push(chunk);
        return;
      }
      settled = true;
      clearDeadline(deadline);
      req.pause();
      resolve(tooLarge(req, limits));
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      clearDeadline(deadline);
      resolve({ body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received) });
    });
    // 'close' before 'end' (or an 'error') is a client that disconnected mid-body.
    req.on('error', () => {
      if (settled) return;
      settled = true;
      clearDeadline(deadline);
      resolve({ aborted: true });
    });
    req.on('close', () => {
      if (settled) return;
      settled = true;
      clearDeadline(deadline);
      resolve({ aborted: true });
    });
  });
}
