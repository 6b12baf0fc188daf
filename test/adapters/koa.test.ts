import { createServer } from 'node:http';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import { createReceiver, createTestDelivery, type Logger } from '@sms-webhooks/core';
import { runAdapterContract } from '@sms-webhooks/core/testing';
import { webhookMiddleware } from '@sms-webhooks/koa';
import Koa3 from 'koa';
import Koa2 from 'koa2';
import { listen } from './listen.js';

const majors = [
  ['koa 3', Koa3],
  ['koa 2', Koa2],
] as const;

const secret = 'whsec_koaadapter0123456789abcdef0123';

function capture(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (...args: unknown[]) => lines.push(args.map(String).join(' '));
  return { lines, warn: keep, error: keep };
}

async function post(url: string, d: { body: string; headers: Record<string, string> }) {
  const res = await fetch(url, {
    method: 'POST',
    headers: d.headers,
    body: d.body,
    signal: AbortSignal.timeout(5000),
  });
  return { status: res.status, json: await res.json() };
}

for (const [name, Koa] of majors) {
  runAdapterContract(name, {
    async start(receiver, { path }) {
      const app = new Koa();
      app.use(webhookMiddleware(receiver, { path }));
      return listen(createServer(app.callback()), path);
    },
  });

  runAdapterContract(`${name} + @koa/router`, {
    async start(receiver, { path }) {
      const app = new Koa();
      const router = new Router();
      router.all(path, webhookMiddleware(receiver));
      app.use(router.routes());
      return listen(createServer(app.callback()), path);
    },
  });

  describe(`${name}: body parser interplay`, () => {
    it('uses ctx.request.rawBody when @koa/bodyparser ran first; other routes keep their parsed body', async () => {
      const receiver = createReceiver({ secret, logger: capture(), respond: 'after-handlers' });
      const seen: string[] = [];
      receiver.on('message.delivered', (e) => void seen.push(e.data.to));
      const app = new Koa();
      const router = new Router();
      router.post('/webhooks', webhookMiddleware(receiver));
      router.post('/api/echo', (ctx) => {
        ctx.body = { got: ctx.request.body };
      });
      app.use(bodyParser());
      app.use(router.routes());
      const server = await listen(createServer(app.callback()), '/webhooks');
      try {
        const d = createTestDelivery('message.delivered', { secret });
        expect(await post(server.url, d)).toEqual({ status: 200, json: { received: true } });
        expect(seen).toEqual([d.event.data.to]);
        const tampered = { ...d, body: d.body.replace('"test":true', '"test":false') };
        expect(await post(server.url, tampered)).toMatchObject({
          status: 400,
          json: { error: { code: 'signature_mismatch' } },
        });
        const echo = await post(`${server.origin}/api/echo`, {
          body: '{"a":1}',
          headers: { 'content-type': 'application/json' },
        });
        expect(echo.json).toEqual({ got: { a: 1 } });
      } finally {
        await server.close();
      }
    });

    it('answers 500 raw_body_unavailable when a parser consumed the stream without keeping it, with one hint', async () => {
      const logger = capture();
      const receiver = createReceiver({ secret, logger });
      const handler = vi.fn();
      receiver.on('message.sent', handler);
      const app = new Koa();
      app.use(async (ctx, next) => {
        // A body parser that keeps only the parsed object, as many do.
        const chunks: Buffer[] = [];
        for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
        (ctx.request as { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString());
        await next();
      });
      app.use(webhookMiddleware(receiver, { path: '/webhooks' }));
      const server = await listen(createServer(app.callback()), '/webhooks');
      try {
        for (let i = 0; i < 2; i++) {
          const res = await post(server.url, createTestDelivery('message.sent', { secret }));
          expect(res).toMatchObject({ status: 500, json: { error: { code: 'raw_body_unavailable' } } });
        }
        expect(handler).not.toHaveBeenCalled();
        const hints = logger.lines.filter((l) => l.includes('already parsed'));
        expect(hints).toHaveLength(1);
        expect(hints[0]).toMatch(/before the body parser, or use @koa\/bodyparser/);
      } finally {
        await server.close();
      }
    });

    it('passes other paths on to the next middleware when mounted with app.use and a path', async () => {
      const receiver = createReceiver({ secret, logger: capture() });
      const app = new Koa();
      app.use(webhookMiddleware(receiver, { path: '/webhooks' }));
      app.use((ctx) => {
        ctx.body = { path: ctx.path };
      });
      const server = await listen(createServer(app.callback()), '/webhooks');
      try {
        const res = await fetch(`${server.origin}/elsewhere`);
        expect(await res.json()).toEqual({ path: '/elsewhere' });
      } finally {
        await server.close();
      }
    });
  });
}

it('refuses a missing receiver or a bad path at mount time', () => {
  expect(() => webhookMiddleware(undefined as never)).toThrow(/@sms-webhooks\/koa: .*createReceiver/);
  const receiver = createReceiver({ secret, logger: capture() });
  expect(() => webhookMiddleware(receiver, { path: 'webhooks' })).toThrow(/`path` must start with '\/'/);
});
