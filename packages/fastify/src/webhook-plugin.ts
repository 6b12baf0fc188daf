import type { ServerResponse } from 'node:http';
import type { Receiver, ReceiverResponse } from '@sms-webhooks/core/adapter';
import { createNodeEntry, type NodeExchange } from '@sms-webhooks/core/adapter';
import type {
  FastifyError,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
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

/** A request of the webhook route, with the cancel of its body time-out (a request decorator of its scope). */
type TimedRequest = FastifyRequest & { smsWebhookBodyTimer: (() => void) | null };

function stopBodyTimer(request: FastifyRequest): void {
  const timed = request as TimedRequest;
  timed.smsWebhookBodyTimer?.();
  timed.smsWebhookBodyTimer = null;
}

/** The body as Fastify read it, under the route's `bodyLimit`: bytes, as the signature was made over. */
function keepBytes(request: FastifyRequest, body: Buffer, done: (error: null, body: Buffer) => void): void {
  stopBodyTimer(request);
  done(null, body);
}

const EMPTY = Buffer.alloc(0);

const plugin: FastifyPluginAsync<WebhookPluginOptions> = async (fastify, options) => {
  const { receiver, path, drainTimeoutMs } = validateOptions(options);
  const howToFix =
    "Register webhookPlugin outside the scope of any body parser or preParsing hook that replaces the body stream (a request-decompression plugin): give those a scope of their own, as the webhook plugin's route has.";
  const entry = createNodeEntry(receiver, { name: '@sms-webhooks/fastify', howToFix });
  if (!fastify.hasDecorator('webhookReceiver')) fastify.decorate('webhookReceiver', receiver);
  fastify.addHook('onClose', async () => void (await receiver.drain(drainTimeoutMs)));

  // Not wrapped in fastify-plugin: the parser, hooks and error handler below stay inside this context,
  // and the app's other routes keep their own.
  await fastify.register(async (scope: FastifyInstance) => {
    const bodyLimit = receiver.options.maxBodyBytes;
    scope.removeAllContentTypeParsers();
    // Fastify caches the parser of a named type but looks the '*' fallback up afresh each time: name
    // the type the service sends.
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, keepBytes);
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, keepBytes);
    scope.decorateRequest('smsWebhookBodyTimer', null);

    // Before the body: other methods and an overloaded receiver are answered unread.
    scope.addHook('onRequest', (request, reply, done) => {
      const early = entry.refuseEarly(request.raw);
      if (early !== undefined) return send(reply, early);
      // Fastify's own test for a request without a body, which it hands to the route unparsed.
      const { 'content-length': length, 'transfer-encoding': chunked } = request.headers;
      if (chunked === undefined && (length === undefined || length === '0')) return done();
      (request as TimedRequest).smsWebhookBodyTimer = entry.startBodyTimer(() => {
        (request as TimedRequest).smsWebhookBodyTimer = null;
        // Answered already, or the client went away: nothing to say.
        if (reply.sent || reply.raw.destroyed) return;
        void entry.refuseBody(request.raw, takeOver(reply), 'timed-out');
      });
      done();
    });

    // The app's preParsing hooks run first; one that replaced the body stream (a decompression plugin)
    // would have the signature checked on other bytes than those sent, so the delivery is refused.
    scope.addHook('preParsing', (request, reply, payload, done) => {
      if (payload === request.raw) return done(null, payload);
      stopBodyTimer(request);
      send(reply, entry.refuse('already-used'));
    });

    scope.setErrorHandler((error: FastifyError, request, reply) => {
      stopBodyTimer(request);
      switch (error.code) {
        case 'FST_ERR_CTP_BODY_TOO_LARGE':
          return void entry.refuseBody(request.raw, takeOver(reply), 'too-large');
        case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
          return void entry.refuseBody(request.raw, takeOver(reply), 'unreadable');
      }
      // The client went away mid-body: nobody is left to answer.
      if (reply.raw.destroyed) return void reply.hijack();
      // Not a body error of this route (Fastify 5's 415 to a Content-Type it cannot parse, an error of
      // the app's own hooks): the app's error handler answers it.
      throw error;
    });

    // Not an async handler: Fastify would chain one more promise per request onto the one it returns.
    scope.all(path, { bodyLimit }, (request, reply) => {
      entry
        .handle(request.body ?? EMPTY, request.raw, { params: paramsOf(request) })
        .then((answer) => send(reply, answer))
        .catch((error: unknown) => reply.send(error));
    });
  });
};

function paramsOf(request: FastifyRequest): NodeExchange['params'] {
  return request.params as FastifyRequest['params'] & {};
}

/** Node's response, for an answer that goes out while the rest of the body is still arriving. */
function takeOver(reply: FastifyReply): ServerResponse {
  reply.hijack();
  return reply.raw;
}

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
