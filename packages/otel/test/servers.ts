import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Receiver } from '@sms-webhooks/core';
import { webhookMiddleware as expressMiddleware } from '@sms-webhooks/express';
import webhookPlugin from '@sms-webhooks/fastify';
import { webhookMiddleware as koaMiddleware } from '@sms-webhooks/koa';
import { nodeListener } from '@sms-webhooks/test-helpers/node-bridge';
import { webhookHandler } from '@sms-webhooks/web';
import express from 'express';
import Fastify from 'fastify';
import Koa from 'koa';

export interface Running {
  url: string;
  close(): Promise<void>;
}

export const ADAPTERS = ['express', 'fastify', 'koa', 'web'] as const;
export type AdapterName = (typeof ADAPTERS)[number];

async function listen(server: Server): Promise<Running> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The receiver mounted at /webhooks on a real server on 127.0.0.1, through one adapter. */
export async function serve(adapter: AdapterName, receiver: Receiver): Promise<Running> {
  switch (adapter) {
    case 'express': {
      const app = express();
      app.all('/webhooks', expressMiddleware(receiver));
      return listen(createServer(app));
    }
    case 'fastify': {
      const app = Fastify();
      await app.register(webhookPlugin, { receiver, path: '/webhooks' });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      return { url: `http://127.0.0.1:${port}/webhooks`, close: () => app.close() };
    }
    case 'koa': {
      const app = new Koa();
      app.use(koaMiddleware(receiver, { path: '/webhooks' }));
      return listen(createServer(app.callback()));
    }
    case 'web':
      return listen(createServer(nodeListener(webhookHandler(receiver))));
  }
}
