import { createServer } from 'node:http';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { runAdapterContract } from '@sms-webhooks/core/testing';
import { webhookMiddleware } from '@sms-webhooks/koa';
import { captureLogger, listen } from '@sms-webhooks/test-helpers';
import Koa3 from 'koa';
import Koa2 from 'koa2';
import request from 'supertest';

const majors = [
  ['koa 3', Koa3],
  ['koa 2', Koa2],
] as const;

const secret = 'whsec_koaadapter0123456789abcdef0123';

for (const [name, Koa] of majors) {
  runAdapterContract(
    name,
    {
      async start(receiver, { path }) {
        const app = new Koa();
        app.use(webhookMiddleware(receiver, { path }));
        return listen(createServer(app.callback()), path);
      },
    },
    { routeParams: false },
  );

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
      const receiver = createReceiver({ secret, logger: captureLogger(), respond: 'after-handlers' });
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
      const server = app.callback();
      const d = createTestDelivery('message.delivered', { secret });
      await request(server).post('/webhooks').set(d.headers).send(d.body).expect(200, { received: true });
      expect(seen).toEqual([d.event.data.to]);
      const tampered = d.body.replace('"test":true', '"test":false');
      const refused = await request(server).post('/webhooks').set(d.headers).send(tampered).expect(400);
      expect(refused.body.error.code).toBe('signature_mismatch');
      await request(server)
        .post('/api/echo')
        .send({ a: 1 })
        .expect(200, { got: { a: 1 } });
    });

    it('answers 500 raw_body_unavailable when a parser consumed the stream without keeping it, with one hint', async () => {
      const logger = captureLogger();
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
      for (let i = 0; i < 2; i++) {
        const d = createTestDelivery('message.sent', { secret });
        const res = await request(app.callback()).post('/webhooks').set(d.headers).send(d.body).timeout(5000);
        expect(res.status).toBe(500);
        expect(res.body.error.code).toBe('raw_body_unavailable');
      }
      expect(handler).not.toHaveBeenCalled();
      const hints = logger.lines.filter((l) => l.includes('already parsed'));
      expect(hints).toHaveLength(1);
      expect(hints[0]).toMatch(/before the body parser, or use @koa\/bodyparser/);
    });

    it('passes other paths on to the next middleware when mounted with app.use and a path', async () => {
      const receiver = createReceiver({ secret, logger: captureLogger() });
      const app = new Koa();
      app.use(webhookMiddleware(receiver, { path: '/webhooks' }));
      app.use((ctx) => {
        ctx.body = { path: ctx.path };
      });
      await request(app.callback()).get('/elsewhere').expect(200, { path: '/elsewhere' });
    });
  });
}

it('refuses a missing receiver or a bad path at mount time', () => {
  expect(() => webhookMiddleware(undefined as never)).toThrow(/@sms-webhooks\/koa: .*createReceiver/);
  const receiver = createReceiver({ secret, logger: captureLogger() });
  expect(() => webhookMiddleware(receiver, { path: 'webhooks' })).toThrow(/`path` must start with '\/'/);
});
