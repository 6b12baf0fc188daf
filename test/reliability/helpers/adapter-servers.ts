import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import type { Receiver } from '@sms-webhooks/core';
import { webhookMiddleware as expressMiddleware } from '@sms-webhooks/express';
import webhookPlugin from '@sms-webhooks/fastify';
import { webhookMiddleware as koaMiddleware } from '@sms-webhooks/koa';
import { nodeListener } from '@sms-webhooks/test-helpers/node-bridge';
import { webhookHandler } from '@sms-webhooks/web';
import express from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import fastify4 from 'fastify4';
import Koa from 'koa';
import Koa2 from 'koa2';

export const PATH = '/webhooks';

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The servers keep their frameworks' defaults (Node: a 300 s request time-out; Fastify: none at all):
 * a client that trickles its body must be cut off by the adapters' own `bodyTimeoutMs`.
 */

async function listen(server: Server): Promise<RunningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function node(listener: RequestListener): Promise<RunningServer> {
  return listen(createServer(listener));
}

export interface AdapterUnderTest {
  name: string;
  start(receiver: Receiver): Promise<RunningServer>;
}

function expressApp(make: typeof express): AdapterUnderTest['start'] {
  return (receiver) => {
    const app = make();
    app.post(PATH, expressMiddleware(receiver));
    return node(app);
  };
}

function fastifyApp(make: typeof Fastify): AdapterUnderTest['start'] {
  return async (receiver) => {
    const app = make();
    await app.register(webhookPlugin, { receiver, path: PATH });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
  };
}

function koaApp(Make: typeof Koa): AdapterUnderTest['start'] {
  return (receiver) => {
    const app = new Make();
    app.silent = true;
    const router = new Router();
    router.post(PATH, koaMiddleware(receiver));
    app.use(router.routes());
    return node(app.callback());
  };
}

export const ADAPTERS: AdapterUnderTest[] = [
  { name: 'express 5', start: expressApp(express) },
  { name: 'fastify 5', start: fastifyApp(Fastify) },
  { name: 'koa 3', start: koaApp(Koa) },
  {
    name: 'web (node bridge)',
    start(receiver) {
      const handler = webhookHandler(receiver);
      return node(nodeListener((request) => handler(request)));
    },
  },
  { name: 'express 4', start: expressApp(express4) },
  { name: 'fastify 4', start: fastifyApp(fastify4 as unknown as typeof Fastify) },
  { name: 'koa 2', start: koaApp(Koa2) },
];
