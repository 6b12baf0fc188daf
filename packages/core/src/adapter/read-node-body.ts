import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import type { Clock } from '../verify/clock.js';
import { clearDeadline, type Deadline, setDeadline } from './deadlines.js';
import type { BodyRead } from './entry-refusal.js';

export interface NodeBodyLimits {
  maxBodyBytes: number;
  bodyTimeoutMs: number;
  clock?: Clock;
}

/** A refusal ('too-large', 'timed-out') leaves the rest of the body on the wire, for the answer to drain. */
export type NodeBodyResult = BodyRead<Buffer>;

const ABORTED = { aborted: true } as const;
const TOO_LARGE = { refused: 'too-large' } as const;
const TIMED_OUT = { refused: 'timed-out' } as const;
const ALREADY_USED = { refused: 'already-used' } as const;
const UNREADABLE = { refused: 'unreadable' } as const;

/**
 * Reads a request body under the limits, and calls `done` once, never before it returns: a declared
 * length over the limit is refused unread, a body that crosses the limit the moment it does (nothing past
 * it is kept), and one that has not arrived within `bodyTimeoutMs` (a client trickling bytes) gets 408.
 *
 * The bytes are read by `raw-body`'s callback form, which refuses a declared or read length over the
 * limit and then pauses the stream with its own listeners removed, leaving the rest for the refusal's
 * drain. raw-body has no time-out: one shared deadline sweeper (deadlines.ts) gives the 408, with a
 * deadline rather than a timer per request. (Issue 28 measured the callback form against the hand-written
 * reader it replaced in main-thread instructions per request: test/bench/README.md.)
 */
export function readNodeBody(
  req: IncomingMessage,
  limits: NodeBodyLimits,
  done: (result: NodeBodyResult) => void,
): void {
  new BodyReader(req, limits, done);
}

/**
 * One body being read. The callbacks are unnamed arrows calling methods: a named function made per
 * request (a class field, a `const`) gets a defineProperty per request from esbuild's keepNames, which
 * tsx applies.
 */
class BodyReader {
  #settled = false;
  readonly #deadline: Deadline;

  constructor(
    readonly req: IncomingMessage,
    readonly limits: NodeBodyLimits,
    readonly done: (result: NodeBodyResult) => void,
  ) {
    this.#deadline = setDeadline(limits.bodyTimeoutMs, () => this.#timedOut(), limits.clock);
    // raw-body answers a declared length over the limit on the next tick, never synchronously.
    getRawBody(req, { length: req.headers['content-length'], limit: limits.maxBodyBytes }, (error, body) =>
      this.#read(error, body),
    );
  }

  #read(error: getRawBody.RawBodyError | null, body: Buffer): void {
    if (this.#settled) return;
    this.#settled = true;
    clearDeadline(this.#deadline);
    // raw-body has removed its listeners, and paused the stream on an error.
    this.done(error ? resultOf(error) : { body });
  }

  /**
   * raw-body's listeners stay on the request, and nothing can remove them from outside: paused, the
   * stream emits no more 'data' for them (and stops reading the socket), and the 408's `connection: close`
   * ends the connection. What raw-body still holds is under the limit, released with the request.
   */
  #timedOut(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.req.pause();
    this.done(TIMED_OUT);
  }
}

/** raw-body's errors, as the refusals and abort a hand-written reader gives for the same requests. */
function resultOf(error: getRawBody.RawBodyError): NodeBodyResult {
  switch (error.type) {
    case 'entity.too.large':
      return TOO_LARGE;
    // The entry checks this before reading; a stream that ended in between has no bytes left to read.
    case 'stream.not.readable':
      return ALREADY_USED;
    // Something set an encoding on the request: what arrives is text, not the signed bytes.
    case 'stream.encoding.set':
      return UNREADABLE;
    // 'request.aborted' ('aborted' before 'end'), the stream's own 'error', and a body whose length is not
    // the declared one (Node's parser keeps the two equal, short of a connection that closes early): the
    // client went away or the stream broke mid-body, and nobody is left to answer.
    default:
      return ABORTED;
  }
}
