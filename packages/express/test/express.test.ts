import { createServer } from 'node:http';
import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { runAdapterContract } from '@sms-webhooks/core/testing';
import { webhookMiddleware } from '@sms-webhooks/express';
import { captureLogger, listen } from '@sms-webhooks/test-helpers';
import express5, { type Response } from 'express';
import express4 from 'express4';
import request from 'supertest';

const majors = [
  ['express 5', express5],
  ['express 4', express4],
] as const;

const secret = 'whsec_expressadapter0123456789abcdef';

for (const [name, express] of majors) {
  runAdapterContract(name, {
    async start(receiver, { path }) {
      const app = express();
      app.all(path, webhookMiddleware(receiver));
      return listen(createServer(app), path);
    },
  });

  describe(`${name}: body parser interplay`, () => {
    it('answers 500 raw_body_unavailable when express.json() ran first, logs one hint, never hangs', async () => {
      const logger = captureLogger();
      const receiver = createReceiver({ secret, logger, respond: 'after-handlers' });
      const handler = vi.fn();
      receiver.on('message.sent', handler);
      const app = express();
      app.use(express.json());
      app.post('/webhooks', webhookMiddleware(receiver));
      for (let i = 0; i < 2; i++) {
        const d = createTestDelivery('message.sent', { secret });
        const res = await request(app).post('/webhooks').set(d.headers).send(d.body).timeout(5000);
        expect(res.status).toBe(500);
        expect(res.body.error.code).toBe('raw_body_unavailable');
      }
      expect(handler).not.toHaveBeenCalled();
      const hints = logger.lines.filter((l) => l.includes('express.json()'));
      expect(hints).toHaveLength(1);
      expect(hints[0]).toMatch(/Mount the webhook route before express\.json\(\)/);
    });

    it('uses the Buffer express.raw() left on req.body, and the JSON routes still parse', async () => {
      const receiver = createReceiver({ secret, logger: captureLogger(), respond: 'after-handlers' });
      const seen: string[] = [];
      receiver.on('message.sent', (e) => void seen.push(e.id));
      const app = express();
      app.post('/webhooks', express.raw({ type: '*/*' }), webhookMiddleware(receiver));
      app.use(express.json());
      app.post('/api/echo', (req, res) => void res.json({ got: req.body }));
      const d = createTestDelivery('message.sent', { secret });
      await request(app).post('/webhooks').set(d.headers).send(d.body).expect(200, { received: true });
      expect(seen).toEqual([d.event.id]);
      await request(app)
        .post('/api/echo')
        .send({ a: 1 })
        .expect(200, { got: { a: 1 } });
    });

    it('reads the stream itself when a JSON parser skipped the request (other content-type)', async () => {
      const receiver = createReceiver({ secret, logger: captureLogger(), respond: 'after-handlers' });
      receiver.on('message.sent', () => {});
      const app = express();
      app.use(express.json());
      app.post('/webhooks', webhookMiddleware(receiver));
      const d = createTestDelivery('message.sent', { secret });
      await request(app)
        .post('/webhooks')
        .set({ ...d.headers, 'content-type': 'text/plain' })
        .send(d.body)
        .expect(200, { received: true });
    });

    it("answers a failure of the receiver itself with core's 500 internal_error, not next(err)", async () => {
      const receiver = createReceiver({ secret, logger: captureLogger() });
      const broken = Object.assign(Object.create(receiver), {
        handle: () => Promise.reject(new Error('boom')),
      });
      const app = express();
      app.post('/webhooks', webhookMiddleware(broken));
      const seen: unknown[] = [];
      app.use((error: unknown, _req: unknown, res: Response, _next: unknown) => {
        seen.push(error);
        res.status(599).end();
      });
      const d = createTestDelivery('message.sent', { secret });
      const res = await request(app).post('/webhooks').set(d.headers).send(d.body).expect(500);
      expect(res.body.error.code).toBe('internal_error');
      expect(res.text).not.toContain('boom');
      expect(seen).toEqual([]);
    });
  });
}

it('refuses a missing receiver at mount time', () => {
  expect(() => webhookMiddleware(undefined as never)).toThrow(/@sms-webhooks\/express: .*createReceiver/);
});
