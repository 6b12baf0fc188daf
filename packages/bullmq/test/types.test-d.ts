// Compiled by `tsc` in the test command, never run: a line that stops compiling fails the suite.
import { createWorker, enqueueTo, type WebhookHandlers } from '@sms-webhooks/bullmq';
import { createReceiver } from '@sms-webhooks/core';
import type { WebhookHandlers as CoreWebhookHandlers, Dispatch } from '@sms-webhooks/core/queue';
import { webhookHandler } from '@sms-webhooks/web';
import { Queue } from 'bullmq';
import { expectTypeOf } from 'vitest';

const queue = new Queue('sms-webhooks', { connection: { url: 'redis://127.0.0.1:6399' } });
expectTypeOf(enqueueTo(queue)).toEqualTypeOf<Dispatch>();
const receiver = createReceiver({ secret: 'whsec_x', dispatch: enqueueTo(queue, { attempts: 3 }) });

// The map's own typing is core's (core/test/queue-types.test-d.ts): this is that type.
expectTypeOf<WebhookHandlers>().toEqualTypeOf<CoreWebhookHandlers>();
const handlers: WebhookHandlers = { 'message.failed': (event) => event.data.to };
createWorker(handlers, { connection: { url: 'redis://127.0.0.1:6399' } });
createWorker(receiver, {
  connection: { url: 'redis://127.0.0.1:6399' },
  onError: (_error, job) => job.data.event.id,
});
// @ts-expect-error not an event type
createWorker({ 'message.unknown': () => {} }, { connection: {} });
// @ts-expect-error connection is required
createWorker(receiver, {});

const handle = webhookHandler(receiver, { waitUntil: (promise) => void promise });
expectTypeOf(handle).toEqualTypeOf<(request: Request, context?: unknown) => Promise<Response>>();
// A Next.js route's second argument fits.
void handle(new Request('http://localhost/'), { params: Promise.resolve({ slug: 'x' }) });
