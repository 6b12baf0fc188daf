import { createServer } from 'node:http';
import type { Receiver } from '@sms-webhooks/core';
import { webhookMiddleware } from '@sms-webhooks/express';
import webhookPlugin from '@sms-webhooks/fastify';
import { webhookMiddleware as koaWebhookMiddleware } from '@sms-webhooks/koa';
import { nodeListener } from '@sms-webhooks/test-helpers/node-bridge';
import { webhookHandler } from '@sms-webhooks/web';
import express from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import fastify4 from 'fastify4';
import { Hono } from 'hono';
import Koa from 'koa';
import Koa2 from 'koa2';
import { listen, nodeHttpServer, type Target } from './targets.js';

type Start = (receiver: Receiver) => Promise<Target>;

function expressApp(make: typeof express): Start {
  return (receiver) => {
    const app = make();
    app.post('/webhooks', webhookMiddleware(receiver));
    return listen(createServer(app));
  };
}

function fastifyApp(make: typeof Fastify): Start {
  return async (receiver) => {
    const app = make();
    await app.register(webhookPlugin, { receiver, path: '/webhooks' });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    return { url: `${address}/webhooks`, close: () => app.close() };
  };
}

function koaApp(Make: typeof Koa): Start {
  return (receiver) => {
    const app = new Make();
    app.use(koaWebhookMiddleware(receiver, { path: '/webhooks' }));
    return listen(createServer(app.callback()));
  };
}

/** The web-standard handler as a Hono route, served on Node through the bridge the web tests use. */
const honoApp: Start = (receiver) => {
  const handler = webhookHandler(receiver);
  const app = new Hono();
  app.all('/webhooks', (c) => handler(c.req.raw));
  return listen(createServer(nodeListener((request) => app.fetch(request))));
};

/**
 * Every adapter the emulator delivers to end to end, each supported framework major included: the
 * older majors (installed under aliases) read bodies and write responses differently enough to test.
 */
export const adapters: Record<string, Start> = {
  'node:http': (receiver) => listen(nodeHttpServer(receiver)),
  'express 5': expressApp(express),
  'express 4': expressApp(express4),
  'fastify 5': fastifyApp(Fastify),
  // Typed against Fastify 5, close enough for this use (as in the adapter tests).
  'fastify 4': fastifyApp(fastify4 as unknown as typeof Fastify),
  'koa 3': koaApp(Koa),
  'koa 2': koaApp(Koa2),
  'web (Hono)': honoApp,
};
