/**
 * A body parser mounted before the webhook route reads an unauthenticated request first, and one that
 * decompresses makes the signature check run on the decompressed bytes. The route then still answers,
 * and says once, in the log, that it should be mounted first.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { bodyParser } from '@koa/bodyparser';
import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { webhookMiddleware as expressMiddleware } from '@sms-webhooks/express';
import { webhookMiddleware as koaMiddleware } from '@sms-webhooks/koa';
import express from 'express';
import Koa from 'koa';

const secret = 'whsec_decodedbody0123456789abcdefgh';

function capture() {
  const lines: string[] = [];
  const keep = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
  return { lines, warn: keep, error: keep };
}

const apps = {
  'express.raw() before the route': (r: ReturnType<typeof createReceiver>) => {
    const app = express();
    app.post('/webhooks', express.raw({ type: '*/*' }), expressMiddleware(r));
    return createServer(app);
  },
  '@koa/bodyparser before the route': (r: ReturnType<typeof createReceiver>) => {
    const app = new Koa();
    app.use(bodyParser({ encoding: 'utf-8' }));
    app.use(koaMiddleware(r, { path: '/webhooks' }));
    return createServer(app.callback());
  },
};

for (const [name, build] of Object.entries(apps)) {
  it(`${name}: a gzip delivery is verified on the decompressed bytes, and the log says so once`, async () => {
    const logger = capture();
    const receiver = createReceiver({ secret, logger, respond: 'after-handlers' });
    const handled: string[] = [];
    receiver.on('message.sent', (event) => void handled.push(event.id));
    const server = build(receiver);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    try {
      for (let i = 0; i < 2; i++) {
        const d = createTestDelivery('message.sent', { secret });
        const res = await fetch(url, {
          method: 'POST',
          headers: { ...d.headers, 'content-encoding': 'gzip' },
          body: gzipSync(d.body),
        });
        expect(res.status, await res.clone().text()).toBe(200);
      }
      expect(handled).toHaveLength(2);
      const hints = logger.lines.filter((l) => l.includes('decompressed (content-encoding: gzip)'));
      expect(hints).toHaveLength(1);
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });
}
