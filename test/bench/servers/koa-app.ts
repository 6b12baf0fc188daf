import type { Server, ServerResponse } from 'node:http';
import Router from '@koa/router';
import type { Receiver } from '@sms-webhooks/core';
import type { NodeExchange, ReceiverResponse } from '@sms-webhooks/core/adapter';
import { webhookMiddleware } from '@sms-webhooks/koa';
import Koa, { type Context } from 'koa';
import getRawBody from 'raw-body';
import { type ContenderName, counters, makeByHand, PATH, RECEIVED_JSON, recipe } from './contenders.js';
import { rawBodyThenCore } from './raw-body-variant.js';

/** The bytes raw-body read, set on the context as @sms-webhooks/koa sets them. */
class KoaKeptBody implements NodeExchange {
  constructor(
    readonly ctx: Context,
    readonly keptBody: Buffer,
  ) {}

  write(answer: ReceiverResponse): void {
    this.ctx.status = answer.status;
    this.ctx.set(answer.headers);
    this.ctx.body = answer.body;
  }

  takeOver(): ServerResponse {
    this.ctx.respond = false;
    return this.ctx.res;
  }
}

export function koaApp(contender: ContenderName, receiver: Receiver | undefined, limit: number) {
  const app = new Koa();
  const router = new Router();
  if (contender === 'ours') {
    router.post(PATH, webhookMiddleware(receiver!));
  } else if (contender === 'rawbody') {
    const handle = rawBodyThenCore(receiver!, limit);
    router.post(PATH, (ctx) =>
      handle(
        ctx.req,
        (body) => new KoaKeptBody(ctx, body),
        (status) => {
          ctx.status = status;
        },
      ),
    );
  } else if (contender === 'byhand') {
    const job = makeByHand();
    router.post(PATH, async (ctx) => {
      const body = await getRawBody(ctx.req, { limit, length: ctx.req.headers['content-length'] });
      const answer = job.receive(body, ctx.req.headers['x-service-signature']);
      ctx.status = answer.status;
      ctx.body = answer.body;
      // Koa writes the answer once this middleware's promise settles; the handler runs after it.
      if (answer.run) setImmediate(job.run, answer.run);
    });
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
