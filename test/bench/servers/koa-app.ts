import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import Router from '@koa/router';
import type { Receiver } from '@sms-webhooks/core';
import { webhookMiddleware } from '@sms-webhooks/koa';
import Koa from 'koa';
import { type ContenderName, counters, PATH, RECEIVED_JSON, recipe } from './contenders.js';

// The same raw-body the adapter uses (a dependency of @sms-webhooks/koa, not of the workspace root).
const getRawBody = createRequire(new URL('../../../packages/koa/package.json', import.meta.url))(
  'raw-body',
) as (req: unknown, options: { limit: number; length?: string }) => Promise<Buffer>;

export function koaApp(contender: ContenderName, receiver: Receiver | undefined, limit: number) {
  const app = new Koa();
  const router = new Router();
  if (contender === 'ours') {
    router.post(PATH, webhookMiddleware(receiver!));
  } else {
    const check = recipe(contender);
    router.post(PATH, async (ctx) => {
      const body = await getRawBody(ctx.req, { limit, length: ctx.req.headers['content-length'] });
      try {
        check(body, ctx.req.headers['x-service-signature']);
      } catch {
        counters.refused++;
        ctx.status = 400;
        ctx.body = { error: 'invalid' };
        return;
      }
      counters.accepted++;
      ctx.body = RECEIVED_JSON;
    });
  }
  app.use(router.routes());
  return {
    listen: () =>
      new Promise<Server>((resolve) => {
        const server = app.listen(0, '127.0.0.1', () => resolve(server));
      }),
  };
}
