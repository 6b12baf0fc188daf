/**
 * The Node body reader on its own, on a real `node:http` server and raw sockets: the stream's state when
 * `done` runs (paused, nothing read past the limit or the deadline) and what the refusal's drain then
 * does with it, where the adapter contract only sees the answers.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { answerRefusal } from '../src/adapter/answer-refusal.js';
import { type NodeBodyLimits, type NodeBodyResult, readNodeBody } from '../src/adapter/node-handler.js';
import { payloadTooLarge, refusal } from '../src/receiver/responses.js';
import { VirtualClock } from '../src/testing/virtual-clock.js';

interface Read {
  req: IncomingMessage;
  res: ServerResponse;
  results: NodeBodyResult[];
  /** Whether `done` ran before `readNodeBody` returned. */
  sync: boolean;
  settled: Promise<NodeBodyResult>;
}

let server: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  if (server) await new Promise((resolve) => server!.close(resolve));
  server = undefined;
});

/** A server that reads each request's body under `limits`; `reads()` gives the next request's read. */
async function startServer(limits: NodeBodyLimits) {
  const waiting: ((read: Read) => void)[] = [];
  const arrived: Read[] = [];
  server = createServer((req, res) => {
    let returned = false;
    let settle!: (result: NodeBodyResult) => void;
    const read: Read = {
      req,
      res,
      results: [],
      sync: false,
      settled: new Promise((resolve) => {
        settle = resolve;
      }),
    };
    void readNodeBody(req, limits).then((result) => {
      read.sync ||= !returned;
      read.results.push(result);
      settle(result);
    });
    returned = true;
    const next = waiting.shift();
    if (next) next(read);
    else arrived.push(read);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    nextRead: () =>
      new Promise<Read>((resolve) => {
        const read = arrived.shift();
        if (read) resolve(read);
        else waiting.push(resolve);
      }),
    connect: async () => {
      const socket = connect(port, '127.0.0.1');
      sockets.push(socket);
      await once(socket, 'connect');
      const received = { text: '', closed: false };
      socket.on('data', (chunk: Buffer) => {
        received.text += chunk.toString();
      });
      socket.on('close', () => {
        received.closed = true;
      });
      socket.on('error', () => {});
      return { socket, received };
    },
  };
}

const head = (length: number | 'chunked') =>
  `POST /webhooks HTTP/1.1\r\nhost: x\r\n${length === 'chunked' ? 'transfer-encoding: chunked' : `content-length: ${length}`}\r\n\r\n`;
const chunk = (bytes: string) => `${bytes.length.toString(16)}\r\n${bytes}\r\n`;

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const TIMED_OUT_ANSWER = refusal('request_timeout', 'late');

describe('readNodeBody', () => {
  it('gives the whole body, once and never synchronously', async () => {
    const app = await startServer({ maxBodyBytes: 1024, bodyTimeoutMs: 60_000 });
    const { socket } = await app.connect();
    socket.write(`${head(11)}hello world`);
    const read = await app.nextRead();
    expect(await read.settled).toEqual({ body: Buffer.from('hello world') });
    expect(read.sync).toBe(false);
    expect(read.results).toHaveLength(1);
  });

  it('refuses a declared length over the limit unread, not synchronously, and the drain then reads the rest', async () => {
    const app = await startServer({ maxBodyBytes: 100, bodyTimeoutMs: 60_000 });
    const { socket, received } = await app.connect();
    socket.write(head(5000));
    const read = await app.nextRead();
    expect(await read.settled).toEqual({ refused: 'too-large' });
    expect(read.sync).toBe(false);
    // Unread: nothing made the stream flow.
    expect(read.req.readableFlowing).not.toBe(true);
    const answered = answerRefusal(read.req, read.res, payloadTooLarge(100));
    socket.write('x'.repeat(5000));
    await answered;
    // The drain read the declared body to its end, so the connection serves the next request.
    await until(() => received.text.includes('payload_too_large'), 'the 413');
    expect(received.text).toMatch(/^HTTP\/1\.1 413 /);
    socket.write(`${head(2)}ok`);
    const next = await app.nextRead();
    expect(await next.settled).toEqual({ body: Buffer.from('ok') });
    expect(read.results).toHaveLength(1);
  });

  it('refuses a chunked body the moment it crosses the limit, paused, and the drain reads on', async () => {
    const app = await startServer({ maxBodyBytes: 100, bodyTimeoutMs: 60_000 });
    const { socket, received } = await app.connect();
    socket.write(head('chunked') + chunk('a'.repeat(60)));
    const read = await app.nextRead();
    await until(() => read.req.readableLength === 0 && read.results.length === 0, 'the first chunk read');
    socket.write(chunk('b'.repeat(60)));
    expect(await read.settled).toEqual({ refused: 'too-large' });
    // Nothing reads past the limit until the drain.
    expect(read.req.isPaused()).toBe(true);
    const answered = answerRefusal(read.req, read.res, payloadTooLarge(100));
    for (let i = 0; i < 20; i++) socket.write(chunk('c'.repeat(1000)));
    socket.write('0\r\n\r\n');
    await answered;
    await until(() => received.text.includes('payload_too_large'), 'the 413');
    expect(received.text).toMatch(/^HTTP\/1\.1 413 /);
    socket.write(`${head(2)}ok`);
    expect(await (await app.nextRead()).settled).toEqual({ body: Buffer.from('ok') });
    expect(read.results).toHaveLength(1);
  });

  it('times out on the receiver clock with its listeners attached: 408 goes out, no byte after it is read, the connection closes', async () => {
    const clock = new VirtualClock();
    const app = await startServer({ maxBodyBytes: 64 * 1024, bodyTimeoutMs: 1000, clock });
    const { socket, received } = await app.connect();
    socket.write(`${head(64 * 1024)}${'a'.repeat(100)}`);
    const read = await app.nextRead();
    await until(() => read.req.readableLength === 0, 'the first bytes read');
    await clock.advance(999);
    expect(read.results).toEqual([]);
    await clock.advance(1);
    expect(await read.settled).toEqual({ refused: 'timed-out' });
    expect(read.req.isPaused()).toBe(true);
    // Counts what the stream still emits to the reader's listeners; added while paused, it does not resume it.
    let emittedAfter = 0;
    read.req.on('data', (c: Buffer) => {
      emittedAfter += c.length;
    });
    await answerRefusal(read.req, read.res, TIMED_OUT_ANSWER);
    // The client keeps trickling, up to the whole declared body.
    for (let i = 0; i < 16 && !socket.destroyed; i++) socket.write('b'.repeat(4000));
    await until(() => received.closed, 'the connection to close');
    expect(received.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(received.text.toLowerCase()).toContain('connection: close');
    expect(emittedAfter).toBe(0);
    expect(read.req.readableLength).toBeLessThanOrEqual(read.req.readableHighWaterMark);
    expect(read.results).toEqual([{ refused: 'timed-out' }]);
  });

  it("calls done once when the client goes away after the time-out (the request's 'aborted' and 'close')", async () => {
    const clock = new VirtualClock();
    const app = await startServer({ maxBodyBytes: 1024, bodyTimeoutMs: 1000, clock });
    const { socket } = await app.connect();
    socket.write(`${head(500)}${'a'.repeat(10)}`);
    const read = await app.nextRead();
    await until(() => read.req.readableLength === 0, 'the first bytes read');
    let closed = false;
    read.req.once('close', () => {
      closed = true;
    });
    await clock.advance(1000);
    expect(await read.settled).toEqual({ refused: 'timed-out' });
    socket.destroy();
    await until(() => closed, "the request's 'close'");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(read.results).toEqual([{ refused: 'timed-out' }]);
  });

  it('times out on the system clock, and the server closes after the 408', async () => {
    const app = await startServer({ maxBodyBytes: 1024, bodyTimeoutMs: 150 });
    const { socket, received } = await app.connect();
    socket.write(`${head(500)}${'a'.repeat(10)}`);
    const read = await app.nextRead();
    expect(await read.settled).toEqual({ refused: 'timed-out' });
    await answerRefusal(read.req, read.res, TIMED_OUT_ANSWER);
    await until(() => received.closed, 'the connection to close');
    expect(received.text).toMatch(/^HTTP\/1\.1 408 /);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(read.results).toHaveLength(1);
  });

  it('says aborted, once, when the client goes away mid-body', async () => {
    const app = await startServer({ maxBodyBytes: 1024, bodyTimeoutMs: 60_000 });
    const { socket } = await app.connect();
    socket.write(`${head(500)}${'a'.repeat(10)}`);
    const read = await app.nextRead();
    await until(() => read.req.readableLength === 0, 'the first bytes read');
    socket.destroy();
    expect(await read.settled).toEqual({ aborted: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(read.results).toHaveLength(1);
  });

  it('says aborted when the request is destroyed with an error mid-body', async () => {
    const app = await startServer({ maxBodyBytes: 1024, bodyTimeoutMs: 60_000 });
    const { socket } = await app.connect();
    socket.write(`${head(500)}${'a'.repeat(10)}`);
    const read = await app.nextRead();
    read.req.destroy(new Error('broken'));
    expect(await read.settled).toEqual({ aborted: true });
    expect(read.results).toHaveLength(1);
  });
});
