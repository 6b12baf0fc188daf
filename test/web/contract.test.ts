import { createServer } from 'node:http';
import { runAdapterContract } from '@sms-webhooks/core/testing';
import { webhookHandler } from '@sms-webhooks/web';
import { Hono } from 'hono';
import { listen } from '../adapters/listen.js';
import { nodeListener } from './node-bridge.js';

runAdapterContract('web (Request/Response over node:http)', {
  async start(receiver, { path }) {
    const handler = webhookHandler(receiver);
    return listen(
      createServer(
        nodeListener((request) =>
          new URL(request.url).pathname === path
            ? handler(request)
            : new Response('not found', { status: 404 }),
        ),
      ),
      path,
    );
  },
});

runAdapterContract('web in Hono (app.fetch over node:http)', {
  async start(receiver, { path }) {
    const app = new Hono();
    const handler = webhookHandler(receiver);
    app.all(path, (c) => handler(c.req.raw));
    return listen(createServer(nodeListener(app.fetch)), path);
  },
});
