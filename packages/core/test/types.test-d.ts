// Compiled by `tsc` in the test command, never run: a line that stops compiling fails the suite.
import {
  type AnyWebhookEvent,
  createReceiver,
  createTestDelivery,
  type EventType,
  type MessageObject,
  type WebhookEvent,
} from '@sms-webhooks/core';
import { expectTypeOf } from 'vitest';

const receiver = createReceiver({ secret: 'whsec_x' });

receiver.on('message.failed', (e) => {
  expectTypeOf(e.data.to).toEqualTypeOf<string>();
  expectTypeOf(e.type).toEqualTypeOf<'message.failed'>();
  expectTypeOf(e.data).toEqualTypeOf<MessageObject>();
  return e.data.to;
});

receiver.on('sms.completed', (e, ctx) => {
  expectTypeOf(e.data).toEqualTypeOf<Record<string, unknown>>();
  expectTypeOf(ctx.attempt).toEqualTypeOf<number | undefined>();
  expectTypeOf(ctx.receivedAt).toEqualTypeOf<Date>();
  // @ts-expect-error sms.completed's data is not a message object
  e.data.to.toUpperCase();
});

receiver.on(['message.sent', 'message.delivered'], (e) => {
  expectTypeOf(e.type).toEqualTypeOf<'message.sent' | 'message.delivered'>();
  expectTypeOf(e.data.sms_id).toEqualTypeOf<string>();
});

// @ts-expect-error not an event type
receiver.on('nope', () => {});
// @ts-expect-error not an event type inside a list
receiver.on(['message.sent', 'message.nope'], () => {});
// @ts-expect-error message objects have no `body` field
receiver.on('message.replied', (e) => e.data.body);

receiver.onAny((e) => {
  expectTypeOf(e).toEqualTypeOf<AnyWebhookEvent>();
  expectTypeOf(e.type).toEqualTypeOf<string>();
});

// The union narrows on `type`.
declare const event: WebhookEvent;
if (event.type === 'message.delivered') expectTypeOf(event.data).toEqualTypeOf<MessageObject>();
if (event.type === 'webhook.test') expectTypeOf(event.data).toEqualTypeOf<Record<string, unknown>>();
expectTypeOf<EventType>().toEqualTypeOf<
  | 'message.sent'
  | 'message.delivered'
  | 'message.failed'
  | 'message.replied'
  | 'sms.completed'
  | 'webhook.test'
>();

// Open-ended statuses keep the known ones and accept others.
const known: MessageObject['status'] = 'delivered';
const future: MessageObject['status'] = 'queued_by_carrier';
expectTypeOf(known).toExtend<string>();
expectTypeOf(future).toExtend<string>();

const d = createTestDelivery('message.failed', { secret: 'whsec_x', data: { to: '+1' } });
expectTypeOf(d.event.data.to).toEqualTypeOf<string>();
// @ts-expect-error data is checked against the type's payload
createTestDelivery('message.failed', { secret: 'whsec_x', data: { to: 1 } });

// @ts-expect-error respond takes two values only
createReceiver({ secret: 'whsec_x', respond: 'later' });
// @ts-expect-error secret is required
createReceiver({});

// Many tenants: the `secret` function gets `{ tenant }` alone, what its answer is cached under.
createReceiver({
  secret: async ({ tenant }) => (tenant === 'acme' ? 'whsec_x' : undefined),
  secretTimeoutMs: 2000,
});
// @ts-expect-error params are the `tenant` function's to read, not the `secret` function's
createReceiver({ secret: ({ params }) => (params.mode === 'test' ? 'whsec_t' : 'whsec_l') });
createReceiver({ secret: ({ tenant }) => tenant, tenant: ({ params }) => `${params.tenant}:${params.mode}` });
// @ts-expect-error the `tenant` function names the tenant at once, without a promise
createReceiver({ secret: ({ tenant }) => tenant, tenant: async () => 'acme' });
