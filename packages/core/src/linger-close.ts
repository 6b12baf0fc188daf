import type { Socket } from 'node:net';
import { discardRestOfBody } from './discard-body.js';

/** How long, and how much, a refused request may still send before its connection is dropped. */
const LINGER_MS = 2_000;
const LINGER_BYTES = 32 * 1024 * 1024;
/** How long reading stays paused first, for clients that read the answer while they send. */
const PAUSED_MS = 200;
/** How often the bytes read while lingering are checked against LINGER_BYTES. */
const METER_MS = 100;

/**
 * Makes the close after an early answer (413, 408) a lingering one. Closing a socket while the client
 * is still sending makes the kernel answer with a reset, and a reset discards the answer the client
 * has not read yet: most clients then see EPIPE or ECONNRESET instead of our 413. So, as Apache and
 * Go's net/http do, we send the answer and a FIN, then read and drop what still arrives for a short,
 * bounded while before closing. Nothing is kept.
 *
 * What is read is dropped inside Node's HTTP parser (discard-body.ts), so draining costs no memory: a
 * hundred refused 10 MiB uploads at once drained 75-400 MiB, and copying it into Buffers for the GC to
 * free raised peak RSS by 35-72 MiB; now by about 33 MiB, the refused bodies' first 1 MiB each.
 *
 * Reading stays paused for the first 200 ms. HTTP clients read the answer while they send, and hang up
 * once they have it; reading what they sent meanwhile would only cost CPU. Clients that send everything
 * before reading are then drained as before.
 *
 * Node's HTTP server ends a `connection: close` response with `socket.destroySoon()`; this replaces
 * that one call on this one socket. Should Node stop calling it, the close is merely abrupt again.
 */
export function lingerOnClose(socket: Socket | null | undefined): void {
  if (!socket || socket.destroyed) return;
  discardRestOfBody(socket);
  socket.destroySoon = function lingeringDestroySoon(this: Socket) {
    if (this.writable) this.end();
    // No 'data' listener: adding one to a server socket takes it away from Node's HTTP parser, which
    // reads into one shared buffer, and makes every read a new Buffer. The byte count comes from libuv.
    const startBytes = this.bytesRead;
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    const meter = setInterval(() => {
      if (this.bytesRead - startBytes > LINGER_BYTES) this.destroy();
    }, METER_MS);
    meter.unref();
    this.once('end', () => this.destroy());
    this.pause();
    const paused = setTimeout(() => this.resume(), PAUSED_MS);
    paused.unref();
    this.once('close', () => {
      clearTimeout(timer);
      clearTimeout(paused);
      clearInterval(meter);
    });
  };
}
