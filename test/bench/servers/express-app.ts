import type { Server } from 'node:http';
import type { Receiver } from '@sms-webhooks/core';
import { webhookMiddleware } from '@sms-webhooks/express';
import express from 'express';
import { type ContenderName, counters, makeByHand, PATH, RECEIVED_JSON, recipe } from './contenders.js';
import { KeptBodyExchange, rawBodyThenCore } from './raw-body-variant.js';

export function expressApp(contender: ContenderName, receiver: Receiver | undefined, limit: number) {
  const app = express();
  if (contender === 'ours') {
    app.post(PATH, webhookMiddleware(receiver!));
  } else if (contender === 'rawbody') {
    const handle = rawBodyThenCore(receiver!, limit);
    app.post(PATH, (req, res, next) => {
      handle(
        req,
        (body) => new KeptBodyExchange(res, body),
        (status) => res.status(status).end(),
      ).catch(next);
    });
  } else if (contender === 'byhand') {
    const job = makeByHand();
    app.post(PATH, express.raw({ type: '*/*', limit }), (req, res) => {
      const answer = job.receive(req.body as Buffer, req.headers['x-service-signature']);
      res.status(answer.status).json(answer.body);
      if (answer.run) setImmediate(job.run, answer.run);
    });
  } else {
    const check = recipe(contender);
    // The Stripe docs' recipe: express.raw() on the webhook route only, then verify and answer.
    app.post(PATH, express.raw({ type: '*/*', limit }), (req, res) => {
      try {
        check(req.body as Buffer, req.headers['x-service-signature']);
      } catch {
        counters.refused++;
        res.status(400).json({ error: 'invalid' });
        return;
      }
      counters.accepted++;
      res.json(RECEIVED_JSON);
    });
  }
  return {
    listen: () =>
      new Promise<Server>((resolve) => {
        const server = app.listen(0, '127.0.0.1', () => resolve(server));
      }),
  };
}
