import {
  METHOD_NOT_ALLOWED,
  payloadTooLarge,
  type Receiver,
  type ReceiverResponse,
} from '@sms-webhooks/core';
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { validateOptions, type WebhookPluginOptions } from './options.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The receiver given to `@sms-webhooks/fastify` (the first one, when registered more than once). */
    webhookReceiver: Receiver;
  }
}

const OTHER_METHODS = ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const EMPTY = Buffer.alloc(0);

function send(reply: FastifyReply, response: ReceiverResponse): FastifyReply {
  return reply.code(response.status).headers(response.headers).send(response.body);
}

const plugin: FastifyPluginAsync<WebhookPluginOptions> = async (fastify, options) => {
  const { receiver, path, drainTimeoutMs } = validateOptions(options);
  const limit = receiver.options.maxBodyBytes;

  if (!fastify.hasDecorator('webhookReceiver')) fastify.decorate('webhookReceiver', receiver);
  fastify.addHook('onClose', async () => {
    await receiver.drain(drainTimeoutMs);
  });

  // Not wrapped in fastify-plugin: the raw-buffer parser stays inside this context, so the app's other
  // routes keep parsing JSON as usual.
  await fastify.register(async (scope: FastifyInstance) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: limit }, (_request, body, done) => {
      done(null, body);
    });
    scope.setErrorHandler((error: FastifyError, _request, reply) => {
      if (error.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') throw error;
      return send(reply.header('connection', 'close'), payloadTooLarge(limit));
    });
    scope.post(path, async (request, reply) => {
      const rawBody = request.body === undefined || request.body === null ? EMPTY : request.body;
      return send(reply, await receiver.handle({ rawBody, headers: request.headers }));
    });
    scope.route({
      method: [...OTHER_METHODS],
      url: path,
      handler: async (_request, reply) => send(reply, METHOD_NOT_ALLOWED),
    });
  });
};

/** `app.register(webhookPlugin, { receiver, path: '/webhooks' })` on Fastify 4 or 5. */
export const webhookPlugin = fp(plugin, { fastify: '4.x || 5.x', name: '@sms-webhooks/fastify' });
