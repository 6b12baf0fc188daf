import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReceiver, type Receiver } from '@sms-webhooks/core';

export interface App {
  url: string;
  receiver: Receiver;
  /** Each handled event as `type id attempt`. */
  handled: string[];
  close(): Promise<void>;
}

/**
 * A real receiving app: verifies with `secret` and records what its handlers saw. `failFirst` answers
 * 500 to the first N deliveries, so the emulator retries.
 */
export async function startApp(
  secret: string,
  options: { port?: number; failFirst?: number } = {},
): Promise<App> {
  const receiver = createReceiver({ secret, respond: 'after-handlers', logger: { warn() {}, error() {} } });
  const handled: string[] = [];
  let toFail = options.failFirst ?? 0;
  receiver.onAny((event, ctx) => {
    handled.push(`${event.type} ${event.id} ${ctx.attempt}`);
  });
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (toFail > 0) {
      toFail -= 1;
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"down for a moment"}');
      return;
    }
    const out = await receiver.handle({ rawBody: Buffer.concat(chunks), headers: req.headers });
    res.writeHead(out.status, out.headers).end(out.body);
  });
  await new Promise<void>((r) => server.listen(options.port ?? 0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/sms`,
    receiver,
    handled,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
