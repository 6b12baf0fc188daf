import assert from 'node:assert/strict';
import { createTestDelivery } from '../verify/test-delivery.js';
import {
  assertError,
  assertJson,
  type ContractRows,
  defer,
  LIMIT,
  post,
  SECRET,
  send,
  signed,
  within,
  writeAllThenRead,
} from './adapter-contract-kit.js';

/** 503 overloaded when every slot and queue place is taken, answered before the body is read. */
export function overloadRows({ it, withServer }: ContractRows): void {
  for (const respond of ['immediately', 'after-handlers'] as const) {
    it(`answers 503 overloaded with Retry-After, without reading the body, past maxConcurrency and maxQueue (respond: ${respond})`, async () => {
      const gate = defer();
      const started = defer();
      const handled: string[] = [];
      const refusals: string[] = [];
      await withServer(
        { respond, maxConcurrency: 1, maxQueue: 0 },
        (r) => {
          r.on('message.sent', async (event) => {
            started.resolve();
            await gate.promise;
            handled.push(event.id);
          });
          r.onRefused((refused) => void refusals.push(`${refused.status} ${refused.code}`));
        },
        async (url, receiver) => {
          const first = createTestDelivery('message.sent', { secret: SECRET });
          const answered = post(url, first);
          if (respond === 'immediately') assertJson(await answered, 200, { received: true });
          await within(started.promise, 'the first handler start');
          // The one slot runs and no place is left. The body is declared and never sent: only an
          // entry that answers before reading it can answer at all.
          const second = createTestDelivery('message.sent', { secret: SECRET });
          const refused = await send(url, {
            headers: { ...second.headers, 'content-length': Buffer.byteLength(second.body) },
            chunks: [second.body.slice(0, 10)],
            end: false,
          });
          assertError(refused, 503, 'overloaded');
          assert.ok(
            Number(refused.headers['retry-after']) > 0,
            'Retry-After is a positive number of seconds',
          );
          gate.resolve();
          if (respond === 'after-handlers') assertJson(await answered, 200, { received: true });
          await within(receiver.drain(), 'drain');
          // The retry the 503 asked for runs the event, once.
          assertJson(await post(url, second), 200, { received: true });
          await within(receiver.drain(), 'drain');
          assertJson(await post(url, second), 200, { received: true, duplicate: true });
        },
      );
      assert.deepEqual(refusals, ['503 overloaded']);
      assert.equal(handled.length, 2);
    });
  }
}

/** 413 past maxBodyBytes: a declared length, a chunked body, and one sent whole before its answer is read. */
export function tooLargeRows({ it, withServer, options }: ContractRows): void {
  it('answers 413 for a declared content-length over maxBodyBytes without waiting for the body', async () => {
    let calls = 0;
    await withServer(
      {},
      (r) => r.onAny(() => void calls++),
      async (url) => {
        const d = createTestDelivery('message.sent', { secret: SECRET });
        // The declared length is never sent: only an adapter that trusts the header can answer.
        const reply = await send(url, {
          headers: { ...d.headers, 'content-length': LIMIT * 1000 },
          chunks: ['{"id":'],
          end: false,
        });
        assertError(reply, 413, 'payload_too_large');
        const whole = await send(url, { headers: d.headers, chunks: [Buffer.alloc(LIMIT + 1, 0x20)] });
        assertError(whole, 413, 'payload_too_large');
      },
    );
    assert.equal(calls, 0, 'no handler runs');
  });

  it('answers 413 as soon as a chunked body without a length crosses maxBodyBytes', async () => {
    let calls = 0;
    await withServer(
      {},
      (r) => r.onAny(() => void calls++),
      async (url) => {
        const d = createTestDelivery('message.sent', { secret: SECRET });
        // Never ended: the answer can only come from a reader that stops at the limit.
        const reply = await send(url, {
          headers: { ...d.headers, 'transfer-encoding': 'chunked' },
          chunks: [
            Buffer.alloc(LIMIT / 2, 0x20),
            Buffer.alloc(LIMIT / 2, 0x20),
            Buffer.alloc(LIMIT / 2, 0x20),
          ],
          end: false,
        });
        assertError(reply, 413, 'payload_too_large');
      },
    );
    assert.equal(calls, 0, 'no handler runs');
  });

  if (options?.ownsConnection !== false) {
    it('still shows the 413 to a client that sends its whole oversized body before reading', async () => {
      let calls = 0;
      await withServer(
        {},
        (r) => r.onAny(() => void calls++),
        async (url) => {
          const d = createTestDelivery('message.sent', { secret: SECRET });
          // Closing at once would reset the connection under a client still writing, losing the answer.
          const big = Buffer.alloc(16 * 1024 * 1024, 0x20);
          const declared = await writeAllThenRead(
            url,
            { ...d.headers, 'content-length': big.length, connection: 'close' },
            big,
          );
          assertError(declared, 413, 'payload_too_large');
          const chunk = (b: Buffer) =>
            Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
          const chunked = await writeAllThenRead(
            url,
            { ...d.headers, 'transfer-encoding': 'chunked', connection: 'close' },
            Buffer.concat([
              chunk(big.subarray(0, 8 * 1024 * 1024)),
              chunk(big.subarray(8 * 1024 * 1024)),
              Buffer.from('0\r\n\r\n'),
            ]),
          );
          assertError(chunked, 413, 'payload_too_large');
        },
      );
      assert.equal(calls, 0, 'no handler runs');
    });
  }
}

/** The rest of the entry's reading: 408 on a slow body, a body exactly at the limit, 405 to other methods. */
export function readRows({ it, withServer }: ContractRows): void {
  it('answers 408 request_timeout when the body trickles in slower than bodyTimeoutMs', async () => {
    let calls = 0;
    await withServer(
      { bodyTimeoutMs: 300 },
      (r) => r.onAny(() => void calls++),
      async (url) => {
        const d = createTestDelivery('message.sent', { secret: SECRET });
        // A declared length that never fully arrives: only a read time-out can end this request.
        const reply = await send(url, {
          headers: { ...d.headers, 'content-length': Buffer.byteLength(d.body) },
          chunks: [d.body.slice(0, 10)],
          end: false,
        });
        assertError(reply, 408, 'request_timeout');
      },
    );
    assert.equal(calls, 0, 'no handler runs');
  });

  it('accepts a body exactly at maxBodyBytes', async () => {
    await withServer(
      { respond: 'after-handlers' },
      (r) => r.on('message.sent', () => {}),
      async (url) => {
        const d = createTestDelivery('message.sent', { secret: SECRET });
        const body = d.body + ' '.repeat(LIMIT - Buffer.byteLength(d.body));
        assert.equal(Buffer.byteLength(body), LIMIT);
        assertJson(await post(url, signed(body, { 'x-service-event-id': d.event.id })), 200, {
          received: true,
        });
      },
    );
  });

  it('answers 405 with Allow: POST to other methods on the webhook path', async () => {
    let calls = 0;
    await withServer(
      {},
      (r) => r.onAny(() => void calls++),
      async (url) => {
        for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
          const reply = await send(url, { method });
          assertError(reply, 405, 'method_not_allowed');
          assert.equal(reply.headers.allow, 'POST');
        }
      },
    );
    assert.equal(calls, 0, 'no handler runs');
  });
}
