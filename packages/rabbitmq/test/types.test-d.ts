// Compiled by `tsc` in the test command, never run: a line that stops compiling fails the suite.
import { createReceiver, MemoryStore } from '@sms-webhooks/core';
import type { WebhookHandlers as CoreWebhookHandlers, Dispatch } from '@sms-webhooks/core/queue';
import {
  createWorker,
  enqueueTo,
  listFailed,
  replayFailed,
  type WebhookHandlers,
} from '@sms-webhooks/rabbitmq';
import amqp from 'amqplib';
import { expectTypeOf } from 'vitest';

const connection = await amqp.connect('amqp://127.0.0.1', { recovery: {} });
const plain = await amqp.connect('amqp://127.0.0.1');
const store = new MemoryStore();
const dispatch = enqueueTo(connection, { store, queueType: 'classic' });
expectTypeOf(dispatch).toMatchTypeOf<Dispatch>();
expectTypeOf(dispatch.close).toEqualTypeOf<() => Promise<void>>();
enqueueTo(plain);
enqueueTo(await plain.createConfirmChannel(), { timeoutMs: 1000 });
// @ts-expect-error a plain channel has no publisher confirms
enqueueTo(await plain.createChannel());
// @ts-expect-error not a queue type RabbitMQ has for this
enqueueTo(plain, { queueType: 'stream' });
const receiver = createReceiver({ secret: 'whsec_x', store, dispatch });

// The map's own typing is core's (core/test/queue-types.test-d.ts): this is that type.
expectTypeOf<WebhookHandlers>().toEqualTypeOf<CoreWebhookHandlers>();
const handlers: WebhookHandlers = { 'message.failed': (event) => event.data.to };
void createWorker(handlers, { connection, store, prefetch: 4, backoffMs: [1000, 5000] });
void createWorker(receiver, {
  connection: plain,
  onError: (_error, { data, runs }) => `${data.event.id} ${runs}`,
});
// @ts-expect-error the worker needs a connection
void createWorker(handlers, { store });

void listFailed(connection).then((failed) => expectTypeOf(failed[0]!.eventId).toEqualTypeOf<string>());
void replayFailed(connection, 'evt_1', { store }).then((r) =>
  expectTypeOf(r.status).toEqualTypeOf<'replayed' | 'completed' | 'in-flight'>(),
);
// @ts-expect-error the replay claims the event in the receiver's store
void replayFailed(connection, 'evt_1', {});
