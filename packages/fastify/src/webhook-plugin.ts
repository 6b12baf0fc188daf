import type { Readable } from 'node:stream';
import {
  errorResponse,
  METHOD_NOT_ALLOWED,
  type Receiver,
  type ReceiverResponse,
  readRequestBodyThen,
} from '@sms-webhooks/core';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
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

type ParserDone = (error: Error | null, body?: Buffer) => void;

const CLIENT_GONE = errorResponse(400, 'payload_invalid', 'The client disconnected mid-body.');

/** A body we refused to read (413, 408): carried from the parser to the error handler as it is. */
class RefusedBody extends Error {
  constructor(readonly response: ReceiverResponse) {
    super(`@sms-webhooks/fastify: body refused (${response.status})`);
  }
}

/** The body goes as a value: Fastify serializes it and sets the JSON content type itself. */
function send(reply: FastifyReply, response: ReceiverResponse): FastifyReply {
  reply.code(response.status);
  const { headers } = response;
  for (const name in headers) {
    if (name !== 'content-type') reply.header(name, headers[name]);
  }
  return reply.send(response.json);
}

const plugin: FastifyPluginAsync<WebhookPluginOptions> = async (fastify, options) => {
  const { receiver, path, drainTimeoutMs } = validateOptions(options);

  if (!fastify.hasDecorator('webhookReceiver')) fastify.decorate('webhookReceiver', receiver);
  fastify.addHook('onClose', async () => {
    await receiver.drain(drainTimeoutMs);
  });

  // Not wrapped in fastify-plugin: the raw-buffer parser stays inside this context, so the app's other
  // routes keep parsing JSON as usual.
  await fastify.register(async (scope: FastifyInstance) => {
    // Core reads the body (limit, time-out, lingering close), as for Express and Koa. Callbacks all the
    // way, not an async parser: Fastify would add a promise hop per request for the latter.
    const parse = (_request: FastifyRequest, payload: Readable, done: ParserDone) => {
      readRequestBodyThen(payload, receiver.options, (read) => {
        if ('body' in read) return done(null, read.body);
        if ('aborted' in read) payload.destroy(); // nobody is left to read the answer
        done(new RefusedBody('refused' in read ? read.refused : CLIENT_GONE));
      });
    };
    // Fastify caches the parser of a named type but looks the '*' fallback up afresh each time: name
    // the type the service sends.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', parse);
    scope.addContentTypeParser('*', parse);
    scope.setErrorHandler((error, _request, reply) => {
      if (!(error instanceof RefusedBody)) throw error;
      return send(reply, error.response);
    });
    // Not an async handler: Fastify would wrap its promise in one more. handle() never rejects for a
    // bad delivery (those are answers); a rejection is a bug and goes to Fastify's error handling.
    scope.post(path, (request, reply) => {
      const rawBody = request.body === undefined || request.body === null ? EMPTY : request.body;
      receiver.handle({ rawBody, headers: request.headers }).then(
        (response) => send(reply, response),
        (error: unknown) => reply.send(error),
      );
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
