import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ReceiverResponse } from '../receiver/responses.js';

/** How long, and how much, the rest of a refused body is still read and dropped. */
export const DRAIN_MS = 5_000;
export const DRAIN_BYTES = 64 * 1024 * 1024;

/**
 * Answers a request whose body was refused, on Node's own response, and deals with the rest of the body.
 *
 * 413: the answer's head and body go out at once (with a content-length, so the client has all of it),
 * and the response ends only once the rest of the body was read and dropped, through the request stream,
 * for a bounded while (5 s, 64 MiB). Node closes a connection when its response ends, if the client
 * asked it to; closing while the client still sends makes the kernel reset the connection, and the reset
 * throws away the answer the client has not read yet (clients that send their whole body before reading
 * would see EPIPE instead of our 413). When the body ends within the bounds, the connection is kept or
 * closed as HTTP says: a request pipelined behind it is parsed and served with its own body. Past the
 * bounds the connection is destroyed, and nothing behind the refused body is parsed. The drain's timer
 * is not unref'd: it is bounded, and `server.close()` waits for it instead of the process exiting under
 * a connection that is still answering.
 *
 * 408: the body trickles, so waiting longer helps no one: reading stops, and the answer's
 * `connection: close` has Node close the connection once it is written.
 */
export async function answerRefusal(
  req: IncomingMessage,
  res: ServerResponse,
  response: ReceiverResponse,
): Promise<void> {
  const length = String(Buffer.byteLength(response.body));
  if (response.status !== 413) {
    // The 408's own headers say `connection: close` (entry-refusal.ts); Node closes once it is written.
    req.pause();
    res.writeHead(response.status, { ...response.headers, 'content-length': length });
    return void res.end(response.body);
  }
  res.writeHead(response.status, { ...response.headers, 'content-length': length });
  if (req.complete) return void res.end(response.body);
  res.write(response.body);
  const ended = await drainRest(req);
  res.end();
  if (!ended) req.socket?.destroy();
}

/** Reads and drops the rest of the body; true when it ended within the bounds. */
function drainRest(req: IncomingMessage): Promise<boolean> {
  return new Promise((resolve) => {
    let drained = 0;
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('close', onClose);
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > DRAIN_BYTES) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(req.complete);
    const timer = setTimeout(finish, DRAIN_MS, false);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
    req.resume();
  });
}
