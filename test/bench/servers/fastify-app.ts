import type { Server } from 'node:http';
import type { Receiver } from '@sms-webhooks/core';
import webhookPlugin from '@sms-webhooks/fastify';
import Fastify from 'fastify';
import { type ContenderName, counters, PATH, RECEIVED_JSON, recipe } from './contenders.js';

export function fastifyApp(contender: ContenderName, receiver: Receiver | undefined, limit: number) {
  const app = Fastify({ logger: false, bodyLimit: limit });
  if (contender === 'ours') {
    app.register(webhookPlugin, { receiver: receiver!, path: PATH });
  } else {
    const check = recipe(contender);
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) =>
      done(null, body),
    );
    app.post(PATH, async (request, reply) => {
      try {
        check(request.body as Buffer, request.headers['x-service-signature']);
      } catch {
        counters.refused++;
        return reply.code(400).send({ error: 'invalid' });
      }
      counters.accepted++;
      return RECEIVED_JSON;
    });
  }
  return {
    listen: async () => {
      await app.listen({ port: 0, host: '127.0.0.1' });
      return app.server as Server;
    },
  };
}
