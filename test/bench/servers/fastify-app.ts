import type { Server, ServerResponse } from 'node:http';
import type { Receiver } from '@sms-webhooks/core';
import type { NodeExchange, ReceiverResponse } from '@sms-webhooks/core/adapter';
import webhookPlugin from '@sms-webhooks/fastify';
import Fastify, { type FastifyReply } from 'fastify';
import { type ContenderName, counters, makeByHand, PATH, RECEIVED_JSON, recipe } from './contenders.js';
import { rawBodyThenCore } from './raw-body-variant.js';

/** The bytes raw-body read, written as @sms-webhooks/fastify writes. */
class FastifyKeptBody implements NodeExchange {
  constructor(
    readonly reply: FastifyReply,
    readonly keptBody: Buffer,
  ) {}

  write(answer: ReceiverResponse): void {
    this.reply.code(answer.status);
    for (const name in answer.headers) this.reply.header(name, answer.headers[name]);
    this.reply.send(answer.body);
  }

  takeOver(): ServerResponse {
    this.reply.hijack();
    return this.reply.raw;
  }
}

const leaveUnread = (_request: unknown, _payload: unknown, done: (error: null) => void) => done(null);

export function fastifyApp(contender: ContenderName, receiver: Receiver | undefined, limit: number) {
  const app = Fastify({ logger: false, bodyLimit: limit });
  if (contender === 'ours') {
    app.register(webhookPlugin, { receiver: receiver!, path: PATH });
  } else if (contender === 'rawbody') {
    // As the plugin registers its route: the body left unread for the reader, a handler that is not async.
    const handle = rawBodyThenCore(receiver!, limit);
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', leaveUnread);
    app.all(PATH, (request, reply) => {
      handle(
        request.raw,
        (body) => new FastifyKeptBody(reply, body),
        (status) => reply.code(status).send(),
      ).catch((error: unknown) => reply.send(error));
    });
  } else if (contender === 'byhand') {
    const job = makeByHand();
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) =>
      done(null, body),
    );
    app.post(PATH, (request, reply) => {
      const answer = job.receive(request.body as Buffer, request.headers['x-service-signature']);
      reply.code(answer.status).send(answer.body);
      if (answer.run) setImmediate(job.run, answer.run);
    });
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
