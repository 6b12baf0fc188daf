import type { Socket } from 'node:net';

/** What we use of Node's HTTP parser: its callback slots, indexed by the constructor's `kOn…` numbers. */
interface NodeHttpParser {
  [slot: number]: unknown;
  constructor: { kOnBody?: unknown };
}

/**
 * Makes Node's HTTP parser drop the rest of a refused request's body where it parses it, in C++.
 *
 * Otherwise the parser copies every chunk that still arrives into a new Buffer for the request stream,
 * only for us to drop it: after a hundred refused 10 MiB uploads that was hundreds of MiB of garbage,
 * and tens of MiB of peak RSS before GC caught up. The parser skips the copy when its body callback is
 * not a function, so we unset it for this connection, which will close, and put it back when the socket
 * closes: Node pools parsers, and the next connection must get its bodies.
 *
 * This relies on Node internals (`socket.parser`, the `kOnBody` slot) that have been stable since Node
 * 12. When they are not there (another Node version, a socket the HTTP server does not parse, HTTPS
 * with a non-consuming parser) nothing changes and the chunks are copied and dropped as before.
 */
export function discardRestOfBody(socket: Socket): void {
  const parser = (socket as Socket & { parser?: NodeHttpParser | null }).parser;
  const slot = parser?.constructor?.kOnBody;
  if (!parser || typeof slot !== 'number' || typeof parser[slot] !== 'function') return;
  const onBody = parser[slot];
  parser[slot] = undefined;
  // Node frees the parser to its pool in its own 'close' listener, added before ours; no connection can
  // take it from the pool before this runs, in the same emit.
  socket.once('close', () => {
    parser[slot] = onBody;
  });
}
