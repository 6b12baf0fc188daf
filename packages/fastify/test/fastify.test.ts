import type { AddressInfo } from 'node:net';
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

const majors: [string, () => App][] = [
  ['fastify 5', () => fastify5() as unknown as App],
  ['fastify 4', () => fastify4() as unknown as App],
];

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
