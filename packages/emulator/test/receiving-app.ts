import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Harness, startEmulator } from './helpers.js';

export interface ReceivingApp {
  url: string;
  /** Each request's headers and body, in order of arrival. */
  received: { headers: IncomingHttpHeaders; body: string }[];
  /** The bodies, parsed. */
  // biome-ignore lint/suspicious/noExplicitAny: delivery bodies are read field by field in assertions
  json(): any[];
  close(): Promise<void>;
}

/** A webhook endpoint that answers 200 to everything and keeps what it was sent. */
export async function receivingApp(): Promise<ReceivingApp> {
  const received: ReceivingApp['received'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    received,
    json: () => received.map((r) => JSON.parse(r.body)),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** An emulator on loopback with one webhook for `events`, pointing at a fresh receiving app. */
export async function emulatorWithApp(
  events: string[] = ['message.sent'],
): Promise<Harness & { target: ReceivingApp }> {
  const target = await receivingApp();
  const harness = await startEmulator({ allowInsecureLoopback: true });
  await harness.call('POST', '/v1/webhooks', {
    token: await harness.token(),
    body: { url: target.url, events },
  });
  return { ...harness, target };
}
