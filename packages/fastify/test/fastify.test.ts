import type { AddressInfo } from 'node:net';
import { Transform } from 'node:stream';
import { createReceiver, createTestDelivery, type Receiver } from '@sms-webhooks/core';
import { DEFAULT_DRAIN_TIMEOUT_MS } from '@sms-webhooks/core/adapter';
import { runAdapterContract } from '@sms-webhooks/core/testing';
import webhookPlugin from '@sms-webhooks/fastify';
import { captureLogger, deferred } from '@sms-webhooks/test-helpers';
import fastify5 from 'fastify';
import fastify4 from 'fastify4';
import { validateOptions } from '../src/options.js';

const secret = 'whsec_fastifyadapter0123456789abcdef';

/** Both majors behind one small shape; v4's types differ from the v5 types the plugin is built with. */
interface App {
  register(plugin: unknown, options?: unknown): PromiseLike<unknown>;
  post(path: string, handler: (request: { body: unknown }) => unknown): unknown;
  listen(options: { port: number; host: string }): Promise<string>;
  ready(): PromiseLike<unknown>;
  close(): Promise<undefined> | PromiseLike<unknown>;
  server: { address(): unknown };
  webhookReceiver?: Receiver;
}

const majors: [string, (options?: { bodyLimit?: number }) => App][] = [
  ['fastify 5', (options) => fastify5(options) as unknown as App],
  ['fastify 4', (options) => fastify4(options) as unknown as App],
];

/** What the encapsulation test sets on the app itself, for its own routes. */
interface AppWithOwnSettings extends App {
  addContentTypeParser(
    type: string,
    options: { parseAs: 'string' },
    parser: (request: unknown, body: string, done: (error: null, body: unknown) => void) => void,
  ): unknown;
  setErrorHandler(
    handler: (error: { code?: string; statusCode?: number }, request: unknown, reply: Reply) => unknown,
  ): unknown;
  addHook(
    name: 'preHandler',
    hook: (request: { headers: Record<string, unknown> }) => Promise<void>,
  ): unknown;
}

interface Reply {
  code(status: number): Reply;
  send(body: unknown): Reply;
}

async function start(app: App) {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

it('types the decorator and the options on the real Fastify 5 instance', async () => {
  const app = fastify5();
  const receiver = createReceiver({ secret, logger: captureLogger() });
  await app.register(webhookPlugin, { receiver, path: '/webhooks' });
  const typed: Receiver = app.webhookReceiver;
  expect(typed).toBe(receiver);
  const other = fastify5();
  // @ts-expect-error `path` is required
  await expect(other.register(webhookPlugin, { receiver })).rejects.toThrow(/`path` option/);
  await Promise.all([app.close(), other.close()]);
});

it("waits core's default drain time-out on close unless drainTimeoutMs is given", () => {
  const receiver = createReceiver({ secret, logger: captureLogger() });
  expect(DEFAULT_DRAIN_TIMEOUT_MS).toBe(10_000);
  expect(validateOptions({ receiver, path: '/w' }).drainTimeoutMs).toBe(DEFAULT_DRAIN_TIMEOUT_MS);
  expect(validateOptions({ receiver, path: '/w', drainTimeoutMs: 500 }).drainTimeoutMs).toBe(500);
});

for (const [name, make] of majors) {
  runAdapterContract(name, {
    async start(receiver, { path }) {
      const app = make();
      await app.register(webhookPlugin, { receiver, path });
      const origin = await start(app);
      return { url: `${origin}${path}`, close: async () => void (await app.close()) };
    },
  });

  describe(`${name}: plugin`, () => {
    it("keeps JSON parsing for the app's other routes and exposes the receiver as a decorator", async () => {
      const app = make();
      const receiver = createReceiver({ secret, logger: captureLogger(), respond: 'after-handlers' });
      receiver.on('message.sent', () => {});
      await app.register(webhookPlugin, { receiver, path: '/webhooks' });
      app.post('/api/echo', async (request) => ({ got: request.body }));
      const origin = await start(app);
      try {
        expect(app.webhookReceiver).toBe(receiver);
        const echo = await fetch(`${origin}/api/echo`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"a":[1,2]}',
        });
        expect(await echo.json()).toEqual({ got: { a: [1, 2] } });
        const d = createTestDelivery('message.sent', { secret });
        const res = await fetch(`${origin}/webhooks`, { method: 'POST', headers: d.headers, body: d.body });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ received: true });
      } finally {
        await app.close();
      }
    });

    it("leaves the app's other routes their own parsers, body limit and error handler, before and after it", async () => {
      const app = make({ bodyLimit: 100 }) as AppWithOwnSettings;
      app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) =>
        done(null, `text:${body}`),
      );
      app.setErrorHandler((error, _request, reply) =>
        reply.code(error.statusCode ?? 500).send({ app: error.code }),
      );
      const routeSaw: unknown[] = [];
      app.post('/before', (request) => {
        routeSaw.push('smsWebhookBodyTimer' in (request as object));
        return { got: request.body };
      });
      const receiver = createReceiver({
        secret,
        logger: captureLogger(),
        respond: 'after-handlers',
        maxBodyBytes: 4096,
      });
      receiver.on('message.sent', () => {});
      await app.register(webhookPlugin, { receiver, path: '/webhooks' });
      app.post('/after', (request) => ({ got: request.body }));
      const origin = await start(app);
      const post = (path: string, type: string, body: string, headers: Record<string, string> = {}) =>
        fetch(`${origin}${path}`, { method: 'POST', headers: { ...headers, 'content-type': type }, body });
      try {
        for (const path of ['/before', '/after']) {
          expect(await (await post(path, 'application/json', '{"a":[1]}')).json()).toEqual({
            got: { a: [1] },
          });
          expect(await (await post(path, 'text/plain', 'hi')).json()).toEqual({ got: 'text:hi' });
          // The app's 100-byte limit and its error handler, not the webhook route's.
          const big = await post(path, 'application/json', JSON.stringify({ a: 'x'.repeat(200) }));
          expect([big.status, await big.json()]).toEqual([413, { app: 'FST_ERR_CTP_BODY_TOO_LARGE' }]);
          const unknown = await post(path, 'application/x-unknown', 'x');
          expect([unknown.status, await unknown.json()]).toEqual([
            415,
            { app: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' },
          ]);
        }
        expect(routeSaw).toEqual([false, false]);
        // The webhook route: the receiver's limit (a delivery is over the app's 100 bytes), any content type.
        const d = createTestDelivery('message.sent', { secret });
        expect(Buffer.byteLength(d.body)).toBeGreaterThan(100);
        for (const type of ['application/json', 'application/x-unknown', 'text/plain']) {
          const again = createTestDelivery('message.sent', { secret });
          const res = await post('/webhooks', type, again.body, again.headers);
          expect([res.status, await res.json()]).toEqual([200, { received: true }]);
        }
        const tooBig = await post('/webhooks', 'application/json', ' '.repeat(5000), d.headers);
        expect(tooBig.status).toBe(413);
        expect(((await tooBig.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
      } finally {
        await app.close();
      }
    });

    it("sends an error of the app's own hooks on the webhook route to the app's error handler", async () => {
      const app = make() as AppWithOwnSettings;
      app.setErrorHandler((error, _request, reply) =>
        reply.code(error.statusCode ?? 500).send({ app: error.code }),
      );
      app.addHook('preHandler', async (request) => {
        if (request.headers['x-deny'] !== undefined) {
          throw Object.assign(new Error('denied'), { statusCode: 403, code: 'DENIED' });
        }
      });
      const receiver = createReceiver({ secret, logger: captureLogger(), respond: 'after-handlers' });
      receiver.on('message.sent', () => {});
      await app.register(webhookPlugin, { receiver, path: '/webhooks' });
      const origin = await start(app);
      try {
        const d = createTestDelivery('message.sent', { secret });
        const denied = await fetch(`${origin}/webhooks`, {
          method: 'POST',
          headers: { ...d.headers, 'x-deny': '1' },
          body: d.body,
        });
        expect([denied.status, await denied.json()]).toEqual([403, { app: 'DENIED' }]);
        const res = await fetch(`${origin}/webhooks`, { method: 'POST', headers: d.headers, body: d.body });
        expect([res.status, await res.json()]).toEqual([200, { received: true }]);
      } finally {
        await app.close();
      }
    });

    it("refuses a delivery whose body stream an app-wide preParsing hook replaced, and leaves the app's routes to it", async () => {
      const app = make() as AppWithOwnSettings & {
        addHook(
          name: 'preParsing',
          hook: (request: unknown, reply: unknown, payload: NodeJS.ReadableStream) => Promise<unknown>,
        ): unknown;
      };
      // A stand-in for a request-decompression plugin: the body every route reads becomes other bytes.
      app.addHook('preParsing', async (request, _reply, payload) =>
        (request as { headers: Record<string, string> }).headers['x-transform'] === undefined
          ? payload
          : payload.pipe(
              new Transform({
                transform: (chunk, _e, next) => next(null, Buffer.from(String(chunk).toUpperCase())),
              }),
            ),
      );
      const logger = captureLogger();
      const receiver = createReceiver({ secret, logger, respond: 'after-handlers' });
      receiver.on('message.sent', () => {});
      await app.register(webhookPlugin, { receiver, path: '/webhooks' });
      app.post('/api/echo', async (request) => ({ got: request.body }));
      const origin = await start(app);
      try {
        const echo = await fetch(`${origin}/api/echo`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-transform': '1' },
          body: '{"a":"b"}',
        });
        expect(await echo.json()).toEqual({ got: { A: 'B' } });
        const d = createTestDelivery('message.sent', { secret });
        const replaced = await fetch(`${origin}/webhooks`, {
          method: 'POST',
          headers: { ...d.headers, 'x-transform': '1' },
          body: d.body,
        });
        expect(replaced.status).toBe(500);
        expect(((await replaced.json()) as { error: { code: string } }).error.code).toBe(
          'raw_body_unavailable',
        );
        expect(logger.lines.join('\n')).toMatch(/preParsing hook that replaces the body stream/);
        // A hook that hands the stream on as it is changes nothing.
        const res = await fetch(`${origin}/webhooks`, { method: 'POST', headers: d.headers, body: d.body });
        expect([res.status, await res.json()]).toEqual([200, { received: true }]);
      } finally {
        await app.close();
      }
    });

    it('times the body only while it arrives: a slow preHandler of the app after it is not a 408', async () => {
      const app = make() as AppWithOwnSettings;
      app.addHook('preHandler', () => new Promise((resolve) => setTimeout(resolve, 400)));
      const receiver = createReceiver({
        secret,
        logger: captureLogger(),
        respond: 'after-handlers',
        bodyTimeoutMs: 150,
      });
      receiver.on('message.sent', () => {});
      await app.register(webhookPlugin, { receiver, path: '/webhooks' });
      const origin = await start(app);
      try {
        const d = createTestDelivery('message.sent', { secret });
        const res = await fetch(`${origin}/webhooks`, { method: 'POST', headers: d.headers, body: d.body });
        expect([res.status, await res.json()]).toEqual([200, { received: true }]);
        // A POST without a body and without a content type skips the parser: answered, and not timed.
        const empty = await fetch(`${origin}/webhooks`, { method: 'POST' });
        expect(empty.status).toBe(400);
        expect(((await empty.json()) as { error: { code: string } }).error.code).toBe('signature_missing');
      } finally {
        await app.close();
      }
    });

    it("writes core's answer as it is: the app's reply serializer and preSerialization hooks leave it alone", async () => {
      const app = make() as App & {
        setReplySerializer(serializer: (payload: unknown) => string): unknown;
        addHook(name: 'preSerialization', hook: (...args: unknown[]) => Promise<unknown>): unknown;
      };
      app.setReplySerializer(() => '{"serialized":"by the app"}');
      app.addHook('preSerialization', async (_request, _reply, payload) => ({ wrapped: payload }));
      const receiver = createReceiver({ secret, logger: captureLogger(), respond: 'after-handlers' });
      receiver.on('message.sent', () => {});
      await app.register(webhookPlugin, { receiver, path: '/webhooks' });
      const origin = await start(app);
      try {
        const d = createTestDelivery('message.sent', { secret });
        const res = await fetch(`${origin}/webhooks`, { method: 'POST', headers: d.headers, body: d.body });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(await res.text()).toBe('{"received":true}');
        const refused = await fetch(`${origin}/webhooks`);
        expect(refused.status).toBe(405);
        expect(await refused.json()).toEqual({
          error: { code: 'method_not_allowed', message: 'Webhook deliveries are POST requests.' },
        });
      } finally {
        await app.close();
      }
    });

    it('waits in app.close() for handlers still running after the ack', async () => {
      const app = make();
      const receiver = createReceiver({ secret, logger: captureLogger() });
      const gate = deferred();
      const started = deferred();
      let finished = false;
      receiver.on('message.delivered', async () => {
        started.resolve();
        await gate.promise;
        finished = true;
      });
      await app.register(webhookPlugin, { receiver, path: '/webhooks' });
      const origin = await start(app);
      const d = createTestDelivery('message.delivered', { secret });
      const res = await fetch(`${origin}/webhooks`, { method: 'POST', headers: d.headers, body: d.body });
      expect(res.status).toBe(200);
      await started.promise;
      let closed = false;
      const closing = Promise.resolve(app.close()).then(() => {
        closed = true;
      });
      await new Promise((r) => setTimeout(r, 50));
      expect(closed).toBe(false);
      gate.resolve();
      await closing;
      expect(finished).toBe(true);
    });

    it.each([
      [{ path: '/webhooks' }, /^@sms-webhooks\/fastify: the `receiver` option is required/],
      [{ receiver: {}, path: '/webhooks' }, /`receiver` option is required/],
      [{ receiver: 'r', path: 'webhooks' }, /`path` option must be a route path starting with '\/'/],
      [{ receiver: 'r' }, /`path` option/],
      [{ receiver: 'r', path: '/w', drainTimeoutMs: -1 }, /`drainTimeoutMs` must be a positive number/],
      [
        { receiver: 'r', path: '/w', drainTimeoutMs: '5000' },
        /^@sms-webhooks\/fastify: `drainTimeoutMs` must be a positive number of milliseconds, such as 10000 \(the default\), got the string "5000"\.$/,
      ],
    ] as [Record<string, unknown>, RegExp][])('refuses %j at register time', async (options, message) => {
      const app = make();
      const receiver = createReceiver({ secret, logger: captureLogger() });
      const resolved = { ...options, receiver: options.receiver === 'r' ? receiver : options.receiver };
      await expect(
        (async () => {
          await app.register(webhookPlugin, resolved);
          await app.ready();
        })(),
      ).rejects.toThrow(message);
      await app.close();
    });
  });
}
