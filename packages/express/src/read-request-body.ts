import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';

export type BodyResult = { body: Buffer } | { tooLarge: true } | { aborted: true };

interface ReadError {
  type?: string;
}

/**
 * Reads at most `limit` bytes. raw-body refuses a declared content-length over the limit before reading
 * and stops (pausing the stream) the moment a chunked body crosses it, so nothing past the limit is kept.
 */
export async function readRequestBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  try {
    const length = req.headers['content-length'];
    return { body: await getRawBody(req, { limit, length: length === undefined ? null : length }) };
  } catch (error) {
    const type = (error as ReadError | null)?.type;
    if (type === 'entity.too.large') return { tooLarge: true };
    // The client went away (or sent fewer bytes than it declared): nobody is left to answer.
    if (type === 'request.aborted' || type === 'request.size.invalid') return { aborted: true };
    throw error;
  }
}

/**
 * True when something before us already read the stream (express.json(), bodyParser, …). Reading it
 * again would wait forever for an 'end' that already happened, so we must not try.
 */
export function bodyConsumed(req: IncomingMessage & { _body?: unknown }): boolean {
  return req._body === true || req.readableEnded || !req.readable;
}
