import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReceiver, type Receiver } from '@sms-webhooks/core';

export interface Target {
  url: string;
  close(): Promise<void>;
}

export async function listen(server: Server, path = '/webhooks'): Promise<Target> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The receiver behind a bare node:http server: what any adapter boils down to. */
export function nodeHttpServer(receiver: Receiver): Server {
  return createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const out = await receiver.handle({ rawBody: Buffer.concat(chunks), headers: req.headers });
    res.writeHead(out.status, out.headers).end(out.body);
  });
}

/**
 * A webhook's secret exists only after registration, and registration needs the target's URL: the
 * target is started with this stand-in, and the real receiver is plugged in once the secret is known.
 */
export function lateReceiver(): { receiver: Receiver; use(real: Receiver): void } {
  let current: Receiver | undefined;
  const pending = createReceiver({ secret: 'whsec_not_registered_yet' });
  const receiver = new Proxy(pending, { get: (_t, prop) => Reflect.get(current ?? pending, prop) });
  return {
    receiver,
    use(real) {
      current = real;
    },
  };
}

export interface Arrival {
  at: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A raw endpoint that records every request and answers as `respond` says. */
export async function recordingTarget(
  respond: (arrival: Arrival, index: number, res: ServerResponse) => void,
): Promise<Target & { arrivals: Arrival[] }> {
  const arrivals: Arrival[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const arrival = {
      at: performance.now(),
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    arrivals.push(arrival);
    respond(arrival, arrivals.length - 1, res);
  });
  return Object.assign(await listen(server), { arrivals });
}
