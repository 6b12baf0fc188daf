import { createServer } from 'node:http';
import { runAdapterContract } from '@sms-webhooks/core/testing';
import { listen } from '@sms-webhooks/test-helpers';
import { nodeListener } from '@sms-webhooks/test-helpers/node-bridge';
import { webhookHandler } from '@sms-webhooks/web';
import { Hono } from 'hono';

// A Web handler never sees the socket: closing it after an early 413 is the platform server's job.
const web = { ownsConnection: false };

runAdapterContract(
  'web (Request/Response over node:http)',
  {
    async start(receiver, { path }) {
      // A route with parameters, matched by a path function, as an app without a router would.
      const names = path.split('/');
      const match = (request: Request) => {
        const parts = new URL(request.url).pathname.split('/');
        if (parts.length !== names.length) return undefined;
        const params: Record<string, string> = {};
        for (const [i, name] of names.entries()) {
          if (name.startsWith(':')) params[name.slice(1)] = decodeURIComponent(parts[i]!);
          else if (name !== parts[i]) return undefined;
        }
        return params;
      };
      const handler = webhookHandler(receiver, { params: match });
      return listen(
        createServer(
          nodeListener((request) =>
            match(request) ? handler(request) : new Response('not found', { status: 404 }),
          ),
        ),
        path,
      );
    },
  },
  web,
);

// The contract speaks HTTP to a URL, so a node:http bridge still carries the bytes; each one arrives as a
// real Request handed to Hono's own test entry point, app.request(request).
runAdapterContract(
  'web in Hono (app.request with a real Request)',
  {
    async start(receiver, { path }) {
      const app = new Hono();
      const handler = webhookHandler(receiver);
      app.all(path, (c) => handler(c.req.raw, { params: c.req.param() }));
      return listen(createServer(nodeListener((request) => app.request(request))), path);
    },
  },
  web,
);
