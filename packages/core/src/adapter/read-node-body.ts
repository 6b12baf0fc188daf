import type { IncomingMessage } from 'node:http';
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

/**
 * Reads a request body under the limits, and calls `done` once, never before it returns: a declared
 * length over the limit is refused unread, a body that crosses the limit the moment it does (nothing past
 * it is kept), and one that has not arrived within `bodyTimeoutMs` (a client trickling bytes) gets 408.
 *
 * Hand-written rather than `raw-body`, with callbacks and one shared deadline sweeper rather than a
 * promise and a timer per request. raw-body's promise form cost 5-7% more server CPU per request on
 * Fastify; its callback form, in this reader with the same deadline and drain and every contract row
 * passing, cost 2.3-5.2% more main-thread instructions per request on each framework (its five listeners
 * added and removed, its closures and async resource per request, a copy of a one-chunk body), over the
 * 2% issue 28 allowed for it: test/bench/README.md.
 */
export function readNodeBody(
  req: IncomingMessage,
  limits: NodeBodyLimits,
  done: (result: NodeBodyResult) => void,
): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limits.maxBodyBytes) {
    queueMicrotask(() => done(TOO_LARGE));
    return;
  }
  new BodyReader(req, limits, done);
}

/**
 * One body being read. Its listeners stay on the request after it settles and drop what still arrives
 * (removing four listeners per request costs more than four no-op calls). They are unnamed arrows
 * calling methods: a named function made per request (a class field, a `const`) gets a defineProperty
 * per request from esbuild's keepNames, which tsx applies.
 */
class BodyReader {
  #chunks: Buffer[] = [];
  #received = 0;
  #settled = false;
  readonly #deadline: Deadline;

  constructor(
    readonly req: IncomingMessage,
    readonly limits: NodeBodyLimits,
    readonly done: (result: NodeBodyResult) => void,
  ) {
    this.#deadline = setDeadline(limits.bodyTimeoutMs, () => this.#settle(TIMED_OUT), limits.clock);
    req.on('data', (chunk: Buffer) => this.#data(chunk));
    req.on('end', () => this.#end());
    // 'close' before 'end' (or an 'error') is a client that went away mid-body.
    req.on('error', () => this.#settle(ABORTED));
    req.on('close', () => this.#settle(ABORTED));
  }

  #data(chunk: Buffer): void {
    if (this.#settled) return;
    this.#received += chunk.length;
    if (this.#received > this.limits.maxBodyBytes) {
      this.#settle(TOO_LARGE);
    } else {
      this.#chunks.push(chunk);
    }
  }

  #end(): void {
    if (this.#settled) return;
    const chunks = this.#chunks;
    this.#settle({ body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#received) });
  }

  #settle(result: NodeBodyResult): void {
    if (this.#settled) return;
    this.#settled = true;
    clearDeadline(this.#deadline);
    // Paused until the refusal's drain reads on; a whole body has nothing left.
    if (!('body' in result)) this.req.pause();
    this.#chunks = [];
    this.done(result);
  }
}
