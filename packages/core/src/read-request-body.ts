import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { BodyBudget, BudgetedRead } from './body-budget.js';
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
  /** Shared by all of a receiver's requests: caps the body bytes held at once (see BodyBudget). */
  bodyBudget?: BodyBudget;
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
  return new Promise((resolve) => readRequestBodyThen(req, limits, resolve));
}

/**
 * `readRequestBody` for callback code (Fastify's body parsers): `done` is called once, never before this
 * returns. No promise, so no microtask hop per request.
 */
export function readRequestBodyThen(
  req: BodyStream,
  limits: RequestBodyLimits,
  done: (result: RequestBodyResult) => void,
): void {
  const declared = req.headers?.['content-length'];
  if (declared !== undefined && Number(declared) > limits.maxBodyBytes) {
    const refused = tooLarge(req, limits);
    // Never synchronously: a caller may not expect its callback before this call returns.
    queueMicrotask(() => done(refused));
  } else {
    new BodyRead(req, limits, done);
  }
}

/**
 * One body being read. Its listeners stay on the request after it settles and drop whatever still
 * arrives (the lingering close after a refusal reads on); they are arrows calling methods, so no
 * per-request function is named (tsx/esbuild's keepNames would wrap each one in a defineProperty).
 */
class BodyRead implements BudgetedRead {
  #chunks: Buffer[] = [];
  #received = 0;
  /** What the budget counts as ours: the chunks kept so far. */
  #held = 0;
  #settled = false;
  readonly #deadline;

  constructor(
    readonly req: BodyStream,
    readonly limits: RequestBodyLimits,
    readonly resolve: (result: RequestBodyResult) => void,
  ) {
    this.#deadline = setDeadline(limits.bodyTimeoutMs, () => {
      if (!this.#settled) this.#settle(timedOut(req, limits));
    });
    req.on('data', (chunk: Buffer) => this.#data(chunk));
    req.on('end', () => this.#end());
    // 'close' before 'end' (or an 'error') is a client that disconnected mid-body.
    req.on('error', () => this.#settle({ aborted: true }));
    req.on('close', () => this.#settle({ aborted: true }));
  }

  #data(chunk: Buffer): void {
    if (this.#settled) return;
    this.#received += chunk.length;
    if (this.#received > this.limits.maxBodyBytes) {
      this.#settle(tooLarge(this.req, this.limits));
      return;
    }
    this.#chunks.push(chunk);
    const budget = this.limits.bodyBudget;
    if (budget) {
      this.#held += chunk.length;
      budget.add(this, chunk.length, this.#held);
    }
  }

  pause(): void {
    this.req.pause();
  }

  resume(): void {
    if (!this.#settled) this.req.resume();
  }

  #end(): void {
    if (this.#settled) return;
    const chunks = this.#chunks;
    this.#settle({ body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#received) });
  }

  #settle(result: RequestBodyResult): void {
    if (this.#settled) return;
    this.#settled = true;
    clearDeadline(this.#deadline);
    if (this.#held > 0) this.limits.bodyBudget?.release(this, this.#held);
    // The listeners outlive the read: let go of what was kept, or it lives on with the request.
    this.#chunks = [];
    this.resolve(result);
  }
}
