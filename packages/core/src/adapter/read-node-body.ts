import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import { type Clock, systemClock } from '../base/clock.js';
import type { BodyRead, EntryRefusal } from './entry-refusal.js';

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
