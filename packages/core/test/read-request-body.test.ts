import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { BodyBudget, type RequestBodyLimits, readRequestBody } from '@sms-webhooks/core';
import { deferred } from './helpers.js';

const KiB = 1024;
const MiB = 1024 * KiB;

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Reads under `limits` and answers what came of it: 200 with the body's length and hash, or the refusal. */
function bodyEcho(limits: RequestBodyLimits, onRead?: (req: IncomingMessage) => void) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const read = await readRequestBody(req, limits);
    onRead?.(req);
    if ('body' in read) {
      const sha = createHash('sha256').update(read.body).digest('hex');
      res.end(JSON.stringify({ length: read.body.length, sha }));
    } else if ('refused' in read) {
      res.writeHead(read.refused.status, read.refused.headers).end(JSON.stringify(read.refused.json));
    }
  };
}

/** Node's HTTP parser on a socket (internal): to check that a pooled one works after a refusal. */
const parserOf = (socket: unknown) => (socket as { parser?: unknown }).parser;

function post(
  port: number,
  body: Buffer,
  parsers: unknown[] = [],
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', method: 'POST', agent: false }, (res) => {
      parsers.push(parserOf(res.socket));
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('readRequestBody: what a refused body still costs', () => {
  it("drops the rest of a refused body in Node's parser: the socket drains it, the request stream never sees it", async () => {
    let afterRefusal = 0;
    let drained: Promise<number> | undefined;
    const server = await listen(
      bodyEcho({ maxBodyBytes: 64 * KiB, bodyTimeoutMs: 5_000 }, (req) => {
        const socket = req.socket;
        const start = socket.bytesRead;
        req.on('data', (chunk: Buffer) => {
          afterRefusal += chunk.length;
        });
        drained = once(socket, 'close').then(() => socket.bytesRead - start);
      }),
    );
    try {
      // Written whole before the answer is read: the server has to read it all to close cleanly.
      const socket = connect(server.port, '127.0.0.1');
      const body = Buffer.alloc(8 * MiB, 0x20);
      socket.write('POST / HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n');
      socket.write(`${body.length.toString(16)}\r\n`);
      socket.write(body);
      socket.end('\r\n0\r\n\r\n');
      let answer = '';
      socket.on('data', (c: Buffer) => {
        answer += c.toString('latin1');
      });
      await once(socket, 'close');
      assert.match(answer, /^HTTP\/1\.1 413 /);
      assert.ok(drained, 'the request was refused');
      const drainedBytes = await drained;
      assert.ok(drainedBytes > 4 * MiB, `the lingering close read the rest (${drainedBytes} bytes)`);
      assert.equal(afterRefusal, 0, 'no chunk of the refused body reached the request stream');
    } finally {
      await server.close();
    }
  });

  it('leaves the pooled parser whole for the next message it parses, request or response', async () => {
    const parsers: unknown[] = [];
    const server = await listen(
      bodyEcho({ maxBodyBytes: 64 * KiB, bodyTimeoutMs: 5_000 }, (req) => {
        parsers.push(parserOf(req.socket));
      }),
    );
    try {
      const refused = await post(server.port, Buffer.alloc(256 * KiB, 0x20));
      assert.equal(refused.status, 413);
      // Let the lingering close finish, so Node puts the refused connection's parser back in its pool.
      await new Promise((resolve) => setTimeout(resolve, 400));
      for (let i = 0; i < 5; i++) {
        const body = Buffer.alloc(32 * KiB + i, 0x61 + i);
        // The client's side parses the answer with a parser from the same pool.
        const reply = await post(server.port, body, parsers);
        assert.equal(reply.status, 200, reply.text);
        assert.deepEqual(JSON.parse(reply.text), { length: body.length, sha: sha(body) });
      }
      // Node hands out the parser freed last (here to the next client request, in this same process):
      // the test is only worth something if the refused connection's parser parsed again.
      assert.ok(parsers.slice(1).includes(parsers[0]), "the refused connection's parser was reused");
    } finally {
      await server.close();
    }
  });
});

describe('readRequestBody with a BodyBudget', () => {
  it('holds large bodies to the budget, reads them all in turn, and never makes a small one wait', async () => {
    const budget = new BodyBudget(256 * KiB);
    let maxHeld = 0;
    let maxPaused = 0;
    const meter = setInterval(() => {
      maxHeld = Math.max(maxHeld, budget.heldBytes);
      maxPaused = Math.max(maxPaused, budget.pausedReads);
    }, 1);
    const server = await listen(bodyEcho({ maxBodyBytes: MiB, bodyTimeoutMs: 10_000, bodyBudget: budget }));
    try {
      // Eight uploads send 600 KiB each, then hold the rest back until the small delivery has its answer.
      const release = deferred();
      const bodies = Array.from({ length: 8 }, (_, i) => Buffer.alloc(900 * KiB, 0x30 + i));
      const large = bodies.map((body) => {
        return new Promise<{ status: number; text: string }>((resolve, reject) => {
          const req = request(
            {
              port: server.port,
              host: '127.0.0.1',
              method: 'POST',
              agent: false,
              headers: { 'content-length': body.length },
            },
            (res) => {
              let text = '';
              res.on('data', (c: Buffer) => {
                text += c;
              });
              res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
            },
          );
          req.on('error', reject);
          req.write(body.subarray(0, 600 * KiB));
          release.promise.then(() => req.end(body.subarray(600 * KiB)));
        });
      });
      while (budget.pausedReads < 6) await new Promise((resolve) => setTimeout(resolve, 10));
      const small = Buffer.from('{"id":"evt_1"}');
      const reply = await post(server.port, small);
      assert.deepEqual(JSON.parse(reply.text), { length: small.length, sha: sha(small) });
      assert.ok(budget.pausedReads >= 6, 'the small body was read while the large ones waited');
      release.resolve();
      const replies = await Promise.all(large);
      replies.forEach((r, i) => {
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(JSON.parse(r.text), { length: bodies[i]!.length, sha: sha(bodies[i]!) });
      });
      // Past the budget by at most the oldest body (it never waits) and, per read, its first 64 KiB (small
      // bodies never wait) and the chunk that found the budget spent.
      assert.ok(maxHeld <= 256 * KiB + 900 * KiB + 8 * 128 * KiB, `held at most ${maxHeld} bytes`);
      assert.ok(maxPaused >= 6);
      assert.equal(budget.heldBytes, 0, 'every read gave its bytes back');
      assert.equal(budget.pausedReads, 0);
    } finally {
      clearInterval(meter);
      await server.close();
    }
  });

  it('gives back the bytes of refused and abandoned bodies', async () => {
    const budget = new BodyBudget(128 * KiB);
    const server = await listen(
      bodyEcho({ maxBodyBytes: 512 * KiB, bodyTimeoutMs: 10_000, bodyBudget: budget }),
    );
    try {
      const refused = await post(server.port, Buffer.alloc(600 * KiB, 0x20));
      assert.equal(refused.status, 413);
      // A client that sends half a large body and disconnects.
      const socket = connect(server.port, '127.0.0.1');
      socket.write(`POST / HTTP/1.1\r\nhost: x\r\ncontent-length: ${400 * KiB}\r\n\r\n`);
      socket.write(Buffer.alloc(200 * KiB, 0x20));
      while (budget.heldBytes < 100 * KiB) await new Promise((resolve) => setTimeout(resolve, 5));
      socket.destroy();
      while (budget.heldBytes > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(budget.pausedReads, 0);
      const body = Buffer.alloc(300 * KiB, 0x41);
      const reply = await post(server.port, body);
      assert.deepEqual(JSON.parse(reply.text), { length: body.length, sha: sha(body) });
    } finally {
      await server.close();
    }
  });
});
