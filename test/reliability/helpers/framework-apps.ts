import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyParser } from '@koa/bodyparser';
import type { Receiver } from '@sms-webhooks/core';
import { webhookMiddleware as expressMiddleware } from '@sms-webhooks/express';
import webhookPlugin from '@sms-webhooks/fastify';
import { webhookMiddleware as koaMiddleware } from '@sms-webhooks/koa';
import express5 from 'express';
import express4 from 'express4';
import fastify5 from 'fastify';
import fastify4 from 'fastify4';
import Koa3 from 'koa';
import Koa2 from 'koa2';

/**
 * An application as users build one: the webhook route at /webhooks next to an ordinary JSON route,
 * /echo, that records every body it was dispatched with. Built on a plain `http.Server` the test can
 * reach (for `upgrade` listeners and `close()`).
 */
export interface FrameworkApp {
  server: Server;
  origin: string;
  /** Bodies /echo was called with, in order. */
  echoed: unknown[];
  close(): Promise<void>;
}

type Build = (receiver: Receiver, echoed: unknown[]) => Promise<Server>;

function expressApp(express: typeof express5): Build {
  return async (receiver, echoed) => {
    const app = express();
    app.all('/webhooks', expressMiddleware(receiver));
    app.post('/echo', express.json(), (req, res) => {
      echoed.push(req.body);
      res.json(req.body);
    });
    return createServer(app);
  };
}

function fastifyApp(fastify: typeof fastify5): Build {
  return async (receiver, echoed) => {
    let server: Server | undefined;
    const app = fastify({
      serverFactory: (handler) => {
        server = createServer(handler);
        return server;
      },
    });
    await app.register(webhookPlugin, { receiver, path: '/webhooks' });
    app.post('/echo', async (request) => {
      echoed.push(request.body);
      return request.body;
    });
    await app.ready();
    return server!;
  };
}

function koaApp(Koa: typeof Koa3): Build {
  return async (receiver, echoed) => {
    const app = new Koa();
    app.use(koaMiddleware(receiver, { path: '/webhooks' }));
    app.use(bodyParser());
    app.use((ctx) => {
      if (ctx.path !== '/echo') return;
      const { body } = ctx.request as unknown as { body: unknown };
      echoed.push(body);
      ctx.body = body;
    });
    return createServer(app.callback());
  };
}

export const FRAMEWORKS: [string, Build][] = [
  ['express 5', expressApp(express5)],
  ['express 4', expressApp(express4 as unknown as typeof express5)],
  ['fastify 5', fastifyApp(fastify5)],
  ['fastify 4', fastifyApp(fastify4 as unknown as typeof fastify5)],
  ['koa 3', koaApp(Koa3)],
  ['koa 2', koaApp(Koa2 as unknown as typeof Koa3)],
];

export async function startApp(build: Build, receiver: Receiver): Promise<FrameworkApp> {
  const echoed: unknown[] = [];
  const server = await build(receiver, echoed);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    origin: `http://127.0.0.1:${port}`,
    echoed,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
