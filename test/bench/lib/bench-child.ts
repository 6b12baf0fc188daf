/**
 * A bench server's side of the IPC that lib/child.ts speaks from the parent: { type: 'ready', port }
 * once listening, an answer to each message it has a reply for, and on 'close' the server closed, then
 * whatever else the process holds; it exits when the parent goes.
 */
import type { Server } from 'node:http';

export interface BenchChild {
  server: Server;
  /** By message type: the message to send back (given the message, for the replies that take options). */
  replies: Record<string, (message: object) => object | Promise<object>>;
  /** After the server stopped listening: the receiver, its store, an SDK. */
  close(): Promise<void>;
}

export function serveParent({ server, replies, close }: BenchChild): void {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.on('message', async (message: { type: string }) => {
    if (message.type === 'close') {
      server.closeAllConnections?.();
      server.close();
      await close();
      process.disconnect?.();
      return;
    }
    const reply = replies[message.type];
    if (reply !== undefined) process.send?.(await reply(message));
  });
  process.on('disconnect', () => process.exit(0));
  process.send?.({ type: 'ready', port });
}

/** Runs a bench server's start-up; a failure exits the process with its error, which the parent sees. */
export function startChild(main: () => Promise<void>): void {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
