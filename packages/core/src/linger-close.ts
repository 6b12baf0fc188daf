import type { Socket } from 'node:net';

/** How long, and how much, a refused request may still send before its connection is dropped. */
const LINGER_MS = 2_000;
const LINGER_BYTES = 32 * 1024 * 1024;
/** How long reading stays paused first, for clients that read the answer while they send. */
const PAUSED_MS = 200;

/**
 * Makes the close after an early answer (413, 408) a lingering one. Closing a socket while the client
 * is still sending makes the kernel answer with a reset, and a reset discards the answer the client
 * has not read yet: most clients then see EPIPE or ECONNRESET instead of our 413. So, as Apache and
 * Go's net/http do, we send the answer and a FIN, then read and drop what still arrives for a short,
 * bounded while before closing. Nothing is kept.
 *
 * Reading stays paused for the first 200 ms. HTTP clients read the answer while they send, and hang up
 * once they have it; what they sent meanwhile then waits in the kernel instead of being copied into
 * buffers that only the next GC frees. With a hundred refused uploads at once, reading it all at once
 * raised peak RSS by 35-90 MiB, pausing first by 40-46 MiB. Clients that send everything before reading
 * are then drained as before.
 *
 * Node's HTTP server ends a `connection: close` response with `socket.destroySoon()`; this replaces
 * that one call on this one socket. Should Node stop calling it, the close is merely abrupt again.
 */
export function lingerOnClose(socket: Socket | null | undefined): void {
  if (!socket || socket.destroyed) return;
  socket.destroySoon = function lingeringDestroySoon(this: Socket) {
    if (this.writable) this.end();
    let dropped = 0;
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.on('data', (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > LINGER_BYTES) this.destroy();
    });
    this.once('end', () => this.destroy());
    this.pause();
    const paused = setTimeout(() => this.resume(), PAUSED_MS);
    paused.unref();
    this.once('close', () => {
      clearTimeout(timer);
      clearTimeout(paused);
    });
  };
}
