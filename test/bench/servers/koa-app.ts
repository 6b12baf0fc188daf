import type { Server } from 'node:http';
import Router from '@koa/router';
import type { Receiver } from '@sms-webhooks/core';
import { webhookMiddleware } from '@sms-webhooks/koa';
import Koa from 'koa';
import getRawBody from 'raw-body';
import { type ContenderName, counters, PATH, RECEIVED_JSON, recipe } from './contenders.js';

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
