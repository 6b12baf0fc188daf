import type { ServerResponse } from 'node:http';
import type { Receiver, ReceiverResponse } from '@sms-webhooks/core/adapter';
import { createNodeHandler, type NodeExchange } from '@sms-webhooks/core/adapter';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { validateOptions, type WebhookPluginOptions } from './options.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The receiver given to `@sms-webhooks/fastify` (the first one, when registered more than once). */
    webhookReceiver: Receiver;
  }
}

/**
 * Core's headers and JSON text, as every adapter writes them. Fastify sends a string with a JSON content
 * type as it is; a value would go through the app's reply serializer and preSerialization hooks.
 */
function send(reply: FastifyReply, answer: ReceiverResponse): void {
  reply.code(answer.status);
  for (const name in answer.headers) reply.header(name, answer.headers[name]);
  reply.send(answer.body);
}

/** A class rather than an object of closures: one is made per request. */
class FastifyExchange implements NodeExchange {
  constructor(
    readonly reply: FastifyReply,
    readonly params: Readonly<Record<string, string | readonly string[] | undefined>>,
  ) {}

  write(answer: ReceiverResponse): void {
    send(this.reply, answer);
  }

  takeOver(): ServerResponse {
    this.reply.hijack();
    return this.reply.raw;
  }
}

const leaveUnread = (_request: unknown, _payload: unknown, done: (error: null) => void) => done(null);

const plugin: FastifyPluginAsync<WebhookPluginOptions> = async (fastify, options) => {
  const { receiver, path, drainTimeoutMs } = validateOptions(options);
  const handle = createNodeHandler(receiver, {
    name: '@sms-webhooks/fastify',
    howToFix: 'Register webhookPlugin without a body parser of its own on its path.',
  });
  if (!fastify.hasDecorator('webhookReceiver')) fastify.decorate('webhookReceiver', receiver);
  fastify.addHook('onClose', async () => void (await receiver.drain(drainTimeoutMs)));

  // Not wrapped in fastify-plugin: the parser below stays inside this context, and the app's other
  // routes keep parsing JSON. It leaves the body unread, for core to read from `request.raw`.
  await fastify.register(async (scope: FastifyInstance) => {
    scope.removeAllContentTypeParsers();
    // Fastify caches the parser of a named type but looks the '*' fallback up afresh each time: name
    // the type the service sends.
    scope.addContentTypeParser('application/json', leaveUnread);
    scope.addContentTypeParser('*', leaveUnread);
    // Not an async handler: Fastify would chain one more promise per request onto the one it returns.
    scope.all(path, (request, reply) => {
      const exchange = new FastifyExchange(reply, request.params as FastifyRequest['params'] & {});
      handle(request.raw, exchange).catch((error: unknown) => reply.send(error));
    });
  });
};

/**
 * `app.register(webhookPlugin, { receiver, path: '/webhooks' })` on Fastify 4 or 5. The route gets the raw
 * body in a scope of its own: the app's other routes keep their JSON parsing.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { createReceiver } from '@sms-webhooks/core';
 * import webhookPlugin from '@sms-webhooks/fastify';
 *
 * const receiver = createReceiver({ secret: process.env.SMS_WEBHOOK_SECRET! });
 * receiver.on('message.failed', (event) => console.log(event.data.to, event.data.error?.code));
 *
 * const app = Fastify();
 * await app.register(webhookPlugin, { receiver, path: '/webhooks/sms' });
 * await app.listen({ port: 3000 }); // app.close() waits for handlers still running
 * ```
 */
export const webhookPlugin = fp(plugin, { fastify: '4.x || 5.x', name: '@sms-webhooks/fastify' });
