import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import type { Logger } from '../base/logger.js';
import { createReceiver } from '../receiver/create-receiver.js';
import type { DedupeStore } from '../receiver/dedupe-store.js';
import { MemoryStore } from '../receiver/memory-store.js';
import type { Receiver } from '../receiver/receiver.js';
import type { ReceiverOptions } from '../receiver/receiver-options.js';
import { signPayload } from '../verify/sign-payload.js';
import type { StandardSchemaV1 } from '../verify/standard-schema.js';
import { createTestDelivery } from '../verify/test-delivery.js';
import { resolveTestApi, type TestApi } from './test-api.js';

/** A running app with the adapter mounted; `url` is the full URL of the webhook route. */
export interface AdapterServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts a real HTTP server (127.0.0.1, port 0) whose framework app mounts `receiver` at `path` with
 * the adapter under test, exactly as a user would.
 */
export interface AdapterHarness {
  start(receiver: Receiver, options: { path: string }): Promise<AdapterServer>;
}

export interface AdapterContractOptions extends Partial<TestApi> {
  /** Path the contract asks the harness to mount the webhook on. Default '/webhooks/sms'. */
  path?: string;
  /**
   * Whether the adapter owns the Node socket, so it can make the close after an early 413 a lingering
   * one (default true), and reads the body with core's Node reader (limits, `maxBufferedBodyBytes`). A
   * Web-standard `(Request) => Response` handler does not: there the platform's server closes the
   * connection and reads the body, and the rows that need either are left out.
   */
  ownsConnection?: boolean;
  /**
   * Whether the harness mounts a route with a parameter (`${path}/:tenant`) as given, so the row on many
   * tenants runs (default true). Only a harness without a router, which matches one fixed path, says false.
   */
  routeParams?: boolean;
}

const SECRET = 'whsec_adaptercontract0123456789abcdef';
const OTHER_SECRET = 'whsec_someoneelse0123456789abcdef01';
/** The tenants of the row on route parameters, each with its own secret; `acme` is rotating to a second. */
const TENANT_SECRETS: Record<string, string[]> = {
  acme: ['whsec_tenantacme0123456789abcdef0123', SECRET],
  globex: ['whsec_tenantglobex0123456789abcdef01'],
};
const LIMIT = 4096;
const TIMEOUT_MS = 5000;

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

interface RawRequest {
  method?: string;
  headers?: Record<string, string | number>;
  /** Written one by one; the request is ended only when `end` is not false. */
  chunks?: (string | Buffer)[];
  end?: boolean;
  /** Written, and the request ended, only once `after` resolves (instead of `end`). */
  rest?: { after: Promise<unknown>; chunk: string | Buffer };
  /** How long to wait for the answer. Default TIMEOUT_MS. */
  timeoutMs?: number;
}

function defer<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Rejects instead of hanging, so a stuck adapter fails the test with a clear message. */
function within<T>(promise: Promise<T>, what: string, ms = TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * node:http rather than fetch where the test needs control over the bytes on the wire: no
 * content-type, a declared length that is never sent, a chunked body that is never ended.
 */
function send(url: string, options: RawRequest = {}): Promise<Reply> {
  const answer = new Promise<Reply>((resolve, reject) => {
    const req = httpRequest(url, {
      method: options.method ?? 'POST',
      headers: options.headers,
      agent: false,
    });
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString() });
        req.destroy();
      });
      res.on('error', reject);
    });
    // The server may close the socket after answering early (413); only a missing answer is a failure.
    req.on('error', (error) => setTimeout(() => reject(error), 200));
    for (const chunk of options.chunks ?? []) req.write(chunk);
    const { rest } = options;
    if (rest) rest.after.then(() => req.end(rest.chunk));
    else if (options.end !== false) req.end();
  });
  return within(answer, `${options.method ?? 'POST'} ${url}`, options.timeoutMs);
}

function dechunk(headers: IncomingHttpHeaders, body: string): string {
  if (headers['transfer-encoding'] !== 'chunked') return body;
  let text = '';
  for (let at = 0; ; ) {
    const eol = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.slice(at, eol), 16);
    if (!(size > 0)) return text;
    text += body.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

/**
 * A client that writes its whole request before it reads a byte of the answer, as blocking clients
 * (Python's requests, curl without expect) do. If the server closes while it still writes, the reset
 * destroys the answer waiting unread: this client then sees an error instead of the status.
 */
function writeAllThenRead(url: string, head: Record<string, string | number>, body: Buffer): Promise<Reply> {
  const { hostname, port, pathname } = new URL(url);
  const answer = new Promise<Reply>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    socket.pause();
    const lines = Object.entries(head).map(([k, v]) => `${k}: ${v}`);
    socket.write(`POST ${pathname} HTTP/1.1\r\nhost: ${hostname}\r\n${lines.join('\r\n')}\r\n\r\n`);
    socket.write(body, () => socket.resume());
    const parts: Buffer[] = [];
    socket.on('data', (c: Buffer) => parts.push(c));
    socket.on('error', (error) => reject(new Error(`the answer was lost: ${error.message}`)));
    socket.on('end', () => {
      socket.destroy();
      const text = Buffer.concat(parts).toString('latin1');
      const [top = '', rest = ''] = text.split('\r\n\r\n', 2);
      const headers: IncomingHttpHeaders = {};
      for (const line of top.split('\r\n').slice(1)) {
        const at = line.indexOf(':');
        headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({ status: Number(top.split(' ')[1]), headers, text: dechunk(headers, rest) });
    });
  });
  return within(answer, `POST ${url} (written whole, then read)`);
}

function post(url: string, delivery: { body: string | Buffer; headers: Record<string, string> }) {
  return send(url, { headers: delivery.headers, chunks: [delivery.body] });
}

function errorCode(reply: Reply): string | undefined {
  try {
    return (JSON.parse(reply.text) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

function assertJson(reply: Reply, status: number, body: object): void {
  assert.equal(reply.status, status, `status (body: ${reply.text})`);
  assert.match(String(reply.headers['content-type']), /application\/json/);
  assert.deepEqual(JSON.parse(reply.text), body);
}

function assertError(reply: Reply, status: number, code: string): void {
  assert.equal(reply.status, status, `status (body: ${reply.text})`);
  assert.match(String(reply.headers['content-type']), /application\/json/);
  assert.equal(errorCode(reply), code, reply.text);
  assert.ok(!reply.text.includes(SECRET), 'an error body never holds the secret');
}

function quietLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (...args: unknown[]) => lines.push(args.map(String).join(' '));
  return { lines, warn: keep, error: keep };
}

function signed(body: string, extra: Record<string, string> = {}, secret = SECRET) {
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-service-signature': signPayload(body, secret),
      ...extra,
    },
  };
}

/**
 * What every adapter must do, over real HTTP: hand the bytes over unchanged with their headers, write the
 * receiver's answers (status, headers, JSON body), and the Node entry's own duties (405, 413, 408, the close
 * after a refusal, any content type). The receiver's policy (signatures, dedupe, modes) is tested once, in core.
 * `runAdapterContract('express 5', { start: (receiver, { path }) => … })`.
 */
export function runAdapterContract(
  name: string,
  harness: AdapterHarness,
  api?: AdapterContractOptions,
): void {
  const { describe, it } = resolveTestApi(api);
  const path = api?.path ?? '/webhooks/sms';

  /** Starts the adapter around a fresh receiver, runs `fn`, then always closes the server. */
  async function withServer(
    options: Partial<ReceiverOptions>,
    setup: (receiver: Receiver) => void,
    fn: (url: string, receiver: Receiver, logger: ReturnType<typeof quietLogger>) => Promise<void>,
  ): Promise<void> {
    const logger = quietLogger();
    const receiver = createReceiver({ secret: SECRET, maxBodyBytes: LIMIT, logger, ...options });
    setup(receiver);
    const server = await harness.start(receiver, { path });
    try {
      await fn(server.url, receiver, logger);
      await within(receiver.drain(), 'receiver.drain()');
      for (const line of logger.lines) assert.ok(!line.includes(SECRET), 'no log line holds the secret');
    } finally {
      await within(server.close(), 'server.close()');
    }
  }

  describe(`adapter contract: ${name}`, () => {
    it('accepts a valid delivery; the handler gets the typed event and ctx.attempt', async () => {
      const seen = defer<{ to: string; id: string; attempt?: number }>();
      await withServer(
        { respond: 'after-handlers' },
        (r) =>
          r.on('message.failed', (event, ctx) =>
            seen.resolve({ to: event.data.to, id: event.id, attempt: ctx.attempt }),
          ),
        async (url) => {
          const d = createTestDelivery('message.failed', { secret: SECRET, attempt: 3 });
          assertJson(await post(url, d), 200, { received: true });
          assert.deepEqual(await within(seen.promise, 'handler call'), {
            to: d.event.data.to,
            id: d.event.id,
            attempt: 3,
          });
        },
      );
    });

    it('answers before a slow handler finishes (respond: immediately), and drain waits for it', async () => {
      const gate = defer();
      const started = defer();
      let finished = false;
      await withServer(
        { respond: 'immediately' },
        (r) =>
          r.on('message.sent', async () => {
            started.resolve();
            await gate.promise;
            finished = true;
          }),
        async (url, receiver) => {
          const d = createTestDelivery('message.sent', { secret: SECRET });
          assertJson(await post(url, d), 200, { received: true });
          assert.equal(finished, false, 'the answer arrived while the handler was still waiting');
          await within(started.promise, 'background handler start');
          const drained = receiver.drain();
          gate.resolve();
          await within(drained, 'drain');
          assert.equal(finished, true);
        },
      );
    });

    it('refuses a tampered body and a wrong secret with 400 signature_mismatch', async () => {
      let calls = 0;
      await withServer(
        {},
        (r) => r.onAny(() => void calls++),
        async (url) => {
          const d = createTestDelivery('message.delivered', { secret: SECRET });
          const tampered = d.body.replace(d.event.data.to, '+15555550999');
          assert.notEqual(tampered, d.body);
          assertError(await post(url, { body: tampered, headers: d.headers }), 400, 'signature_mismatch');
          const spaced = d.body.replace('{', '{ ');
          assertError(await post(url, { body: spaced, headers: d.headers }), 400, 'signature_mismatch');
          const forged = createTestDelivery('message.delivered', { secret: OTHER_SECRET });
          assertError(await post(url, forged), 400, 'signature_mismatch');
        },
      );
      // Handlers run after the answer here ('immediately'), where a throw is only logged: count calls.
      assert.equal(calls, 0, 'no handler runs');
    });

    it('answers 409 in_flight with Retry-After while the same event is being handled', async () => {
      const gate = defer();
      const started = defer();
      let calls = 0;
      await withServer(
        { respond: 'after-handlers' },
        (r) =>
          r.on('message.delivered', async () => {
            calls++;
            started.resolve();
            await gate.promise;
          }),
        async (url) => {
          const d = createTestDelivery('message.delivered', { secret: SECRET });
          const first = post(url, d);
          await within(started.promise, 'first handler start');
          const second = await post(url, d);
          assertError(second, 409, 'in_flight');
          assert.ok(Number(second.headers['retry-after']) > 0, 'Retry-After is a positive number of seconds');
          gate.resolve();
          assertJson(await first, 200, { received: true });
          assertJson(await post(url, d), 200, { received: true, duplicate: true });
          assert.equal(calls, 1);
        },
      );
    });

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

    if (api?.ownsConnection !== false) {
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

    it('verifies deliveries whatever their content-type, or with none', async () => {
      const ids: string[] = [];
      await withServer(
        { respond: 'after-handlers' },
        (r) => r.on('message.sent', (e) => void ids.push(e.id)),
        async (url) => {
          const types = [
            'application/json',
            'application/json; charset=utf-8',
            'text/plain',
            'application/octet-stream',
            'application/x-www-form-urlencoded',
            'application/vnd.odd+json',
            undefined,
          ];
          for (const type of types) {
            const d = createTestDelivery('message.sent', { secret: SECRET });
            const { 'content-type': _, ...headers } = d.headers;
            const reply = await post(url, {
              body: d.body,
              headers: type === undefined ? headers : { ...headers, 'content-type': type },
            });
            assertJson(reply, 200, { received: true });
          }
          assert.equal(ids.length, types.length);
        },
      );
    });

    it('answers 503 store_unavailable with Retry-After when the dedupe store fails, without calling handlers', async () => {
      const broken: DedupeStore = {
        localKeys: false,
        claim: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6399')),
        complete: () => Promise.reject(new Error('down')),
        release: () => Promise.reject(new Error('down')),
      };
      let calls = 0;
      await withServer(
        { store: broken },
        (r) => r.on('message.sent', () => void calls++),
        async (url) => {
          const reply = await post(url, createTestDelivery('message.sent', { secret: SECRET }));
          assertError(reply, 503, 'store_unavailable');
          assert.ok(Number(reply.headers['retry-after']) > 0);
        },
      );
      assert.equal(calls, 0);
    });

    it('answers 422 payload_schema_mismatch, without calling handlers, when data fails a handler schema', async () => {
      // A Standard Schema written out (no schema library needed): `to` must be a string.
      const schema: StandardSchemaV1<unknown, { to: string }> = {
        '~standard': {
          version: 1,
          vendor: 'contract',
          validate: (data) =>
            typeof (data as { to?: unknown }).to === 'string'
              ? { value: data as { to: string } }
              : { issues: [{ message: 'expected a string', path: ['to'] }] },
        },
      };
      let calls = 0;
      await withServer(
        { respond: 'after-handlers' },
        (r) => r.on('message.sent', schema, () => void calls++),
        async (url) => {
          const bad = createTestDelivery('message.sent', { secret: SECRET, data: { to: 4915 as never } });
          assertError(await post(url, bad), 422, 'payload_schema_mismatch');
          assertJson(await post(url, createTestDelivery('message.sent', { secret: SECRET })), 200, {
            received: true,
          });
        },
      );
      assert.equal(calls, 1, 'only the delivery that passed ran its handler');
    });

    it('answers 500 internal_error when receiver.handle itself fails, logs the error once and never echoes it', async () => {
      const detail = 'connect ECONNREFUSED 10.1.2.3:5432 (db-primary.internal)';
      await withServer(
        {},
        (r) => {
          // A bug, not a bad request: nothing the receiver's own policy answers.
          r.handle = () => Promise.reject(new Error(detail));
        },
        async (url, _receiver, logger) => {
          const reply = await post(url, createTestDelivery('message.sent', { secret: SECRET }));
          assertError(reply, 500, 'internal_error');
          assert.ok(
            !reply.text.includes('ECONNREFUSED'),
            `the answer does not echo the error: ${reply.text}`,
          );
          const logged = logger.lines.filter((line) => line.includes(detail));
          assert.equal(logged.length, 1, `the error is logged once: ${JSON.stringify(logger.lines)}`);
        },
      );
    });

    it('keeps working across many deliveries on one server (no leaked state between requests)', async () => {
      const store = new MemoryStore();
      let calls = 0;
      await withServer(
        { store, respond: 'after-handlers' },
        (r) => r.on('message.sent', () => void calls++),
        async (url) => {
          const deliveries = Array.from({ length: 20 }, () =>
            createTestDelivery('message.sent', { secret: SECRET }),
          );
          const replies = await Promise.all(deliveries.map((d) => post(url, d)));
          for (const reply of replies) assertJson(reply, 200, { received: true });
          assert.equal(calls, 20);
        },
      );
    });

    it('hands the body over byte for byte: multi-byte UTF-8, CRLF and trailing spaces verify', async () => {
      const seen = defer<string>();
      await withServer(
        { respond: 'after-handlers' },
        (r) => r.on('message.replied', (event) => seen.resolve(String(event.data.metadata.note))),
        async (url) => {
          const text = 'Grüße, 東京 👋\r\n  tabs\tand trailing spaces   ';
          const d = createTestDelivery('message.replied', {
            secret: SECRET,
            data: { metadata: { note: text } },
          });
          // Re-spaced JSON: the same event, other bytes. Only the bytes as sent may verify.
          const body = `${d.body.replace('{', '{\r\n  ')}  \n`;
          assertJson(await post(url, signed(body)), 200, { received: true });
          assert.equal(await within(seen.promise, 'handler call'), text);
        },
      );
    });

    it('gives handlers ctx.attempt 1-6 from the header, and undefined for anything else', async () => {
      const attempts: (number | undefined)[] = [];
      await withServer(
        { respond: 'after-handlers' },
        (r) => r.on('message.sent', (_event, ctx) => void attempts.push(ctx.attempt)),
        async (url, _receiver, logger) => {
          for (const value of ['6', '999', 'abc', '0', '2.5']) {
            const d = createTestDelivery('message.sent', { secret: SECRET });
            const reply = await post(url, {
              body: d.body,
              headers: { ...d.headers, 'x-service-delivery-attempt': value },
            });
            assertJson(reply, 200, { received: true });
          }
          assert.deepEqual(attempts, [6, undefined, undefined, undefined, undefined]);
          const warned = logger.lines.filter((l) => l.includes('delivery-attempt'));
          assert.equal(warned.length, 1, 'one warning, not one per delivery');
        },
      );
    });

    if (api?.routeParams !== false) {
      it('passes the route parameters (`/:tenant`) to a secret function: each tenant its own secret and ctx.tenant', async () => {
        const logger = quietLogger();
        const receiver = createReceiver({
          secret: ({ tenant }) => TENANT_SECRETS[tenant],
          respond: 'after-handlers',
          logger,
        });
        const seen: { tenant?: string; secretIndex?: number; id: string }[] = [];
        receiver.on('message.sent', (event, ctx) => {
          seen.push({ tenant: ctx.tenant, secretIndex: ctx.secretIndex, id: event.id });
        });
        const route = `${path}/:tenant`;
        const server = await harness.start(receiver, { path: route });
        const at = (tenant: string) => server.url.replace(':tenant', tenant);
        try {
          const d = createTestDelivery('message.sent', { secret: TENANT_SECRETS.acme![1]! });
          assertJson(await post(at('acme'), d), 200, { received: true });
          // The same event id from another tenant is another event: it runs too.
          const other = signed(d.body, { 'x-service-event-id': d.event.id }, TENANT_SECRETS.globex![0]);
          assertJson(await post(at('globex'), { ...d, headers: { ...d.headers, ...other.headers } }), 200, {
            received: true,
          });
          assert.deepEqual(seen, [
            { tenant: 'acme', secretIndex: 1, id: d.event.id },
            { tenant: 'globex', secretIndex: 0, id: d.event.id },
          ]);
          assertError(
            await post(at('globex'), createTestDelivery('message.sent', { secret: SECRET })),
            400,
            'signature_mismatch',
          );
          assertError(
            await post(at('initech'), createTestDelivery('message.sent', { secret: SECRET })),
            404,
            'unknown_tenant',
          );
          assert.equal(seen.length, 2);
        } finally {
          await within(server.close(), 'server.close()');
        }
      });
    }
  });
}
