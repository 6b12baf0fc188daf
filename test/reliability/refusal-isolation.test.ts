/**
 * A refused request (413) must never touch another: not a request pipelined behind it, not one on
 * another connection, not the process's own HTTP client, and not the server's shutdown. Each test here
 * failed on the body reader that unset the HTTP parser's body callback (a parser Node pools for every
 * server and for the `node:http` client) and lingered on an unref'd socket.
 */

import { createServer, get, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { spawnFixture } from '@sms-webhooks/test-helpers/fixture-process';
import { FRAMEWORKS, startApp } from './helpers/framework-apps.js';

const secret = 'whsec_isolation0123456789abcdefghij';
const LIMIT = 1024;
const silent = { warn() {}, error() {} };

function receiver() {
  const r = createReceiver({ secret, maxBodyBytes: LIMIT, respond: 'after-handlers', logger: silent });
  r.on('message.sent', () => {});
  return r;
}

/** Everything the server sends back on one raw connection, until it closes or `ms` pass. */
function collect(socket: Socket, ms: number): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    const done = () => resolve(text);
    socket.on('close', done);
    socket.on('error', () => {});
    setTimeout(() => {
      socket.destroy();
      done();
    }, ms);
  });
}

function chunked(text: string): string {
  return `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
}

/** A server elsewhere that answers 1000 bytes, for the app's own outgoing requests. */
async function thousandBytes(): Promise<Server> {
  const server = createServer((_req, res) => res.end('x'.repeat(1000)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function fetchLength(server: Server): Promise<number> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, agent: false }, (res) => {
      let length = 0;
      res.on('data', (c: Buffer) => {
        length += c.length;
      });
      res.on('end', () => resolve(length));
    }).on('error', reject);
  });
}

for (const [name, build] of FRAMEWORKS) {
  describe(`${name}: refusing one request touches no other`, () => {
    it('a 413 and then an upgrade kept by the app: deliveries on other connections and the http client are unharmed', async () => {
      const app = await startApp(build, receiver());
      const other = await thousandBytes();
      const held: Socket[] = [];
      // A websocket server that has not decided yet keeps the socket.
      app.server.on('upgrade', (_req, socket: Socket) => {
        held.push(socket);
      });
      const { port } = new URL(app.origin);
      const attacker = connect(Number(port), '127.0.0.1');
      try {
        // Chunked, so the body is refused while it streams; the rest and the upgrade follow later.
        attacker.write(
          `POST /webhooks HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${chunked('a'.repeat(2 * LIMIT))}`,
        );
        await new Promise((r) => setTimeout(r, 100));
        attacker.write(
          `${chunked('b'.repeat(2 * LIMIT))}0\r\n\r\nGET /ws HTTP/1.1\r\nhost: x\r\nconnection: upgrade\r\nupgrade: websocket\r\n\r\n`,
        );
        const deadline = Date.now() + 3000;
        while (held.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
        expect(held).toHaveLength(1);

        for (let i = 0; i < 5; i++) {
          const d = createTestDelivery('message.sent', { secret });
          const res = await fetch(`${app.origin}/webhooks`, {
            method: 'POST',
            headers: d.headers,
            body: d.body,
          });
          expect(res.status, await res.clone().text()).toBe(200);
          expect(await res.json()).toEqual({ received: true });
        }
        expect(await fetchLength(other)).toBe(1000);
      } finally {
        attacker.destroy();
        for (const s of held) s.destroy();
        other.close();
        await app.close();
      }
    });

    it('a request pipelined behind an oversized one is served with its own body, or not at all', async () => {
      const app = await startApp(build, receiver());
      const { port } = new URL(app.origin);
      const socket = connect(Number(port), '127.0.0.1');
      try {
        const oversized = chunked('b'.repeat(2 * LIMIT)) + chunked('c'.repeat(2 * LIMIT));
        socket.write(
          `POST /webhooks HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${oversized}0\r\n\r\n` +
            `POST /echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${chunked('{"amount":100}')}0\r\n\r\n`,
        );
        const text = await collect(socket, 1500);
        expect(text).toMatch(/^HTTP\/1\.1 413 /);
        for (const body of app.echoed) expect(body).toEqual({ amount: 100 });
        // Served, then its answer follows the 413 on the same connection.
        if (app.echoed.length > 0) expect(text).toContain('{"amount":100}');
      } finally {
        socket.destroy();
        await app.close();
      }
    });

    it('server.close() completes after a 413, with nothing else holding the process', async () => {
      const child = await spawnFixture(new URL('./fixtures/close-after-refusal.ts', import.meta.url), {
        FRAMEWORK: name,
      });
      const exited = await child.exited;
      expect(child.messages).toContainEqual({ status: 413 });
      expect(child.messages).toContainEqual({ closed: true });
      expect(exited, child.stderr()).toEqual({ code: 0, signal: null });
    });
  });
}
