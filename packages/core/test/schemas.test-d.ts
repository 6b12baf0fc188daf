// Compiled by `tsc` in the test command, never run: a line that stops compiling fails the suite.
import { createReceiver, type MessageObject, type StandardSchemaV1 } from '@sms-webhooks/core';
import type {
  CheckedWebhookEvent,
  CheckedWebhookHandler,
  InvalidEvent,
  SchemaIssue,
} from '@sms-webhooks/core/adapter';
import { type } from 'arktype';
import * as v from 'valibot';
import { expectTypeOf } from 'vitest';
import { z } from 'zod';

const receiver = createReceiver({ secret: 'whsec_x' });

// zod 4: event.data is the schema's output, transforms included.
const zDelivered = z.looseObject({
  to: z.string(),
  updated_at: z.iso.datetime().transform((s) => new Date(s)),
});
receiver.on('message.delivered', zDelivered, (event, ctx) => {
  expectTypeOf(event.type).toEqualTypeOf<'message.delivered'>();
  expectTypeOf(event.data.to).toEqualTypeOf<string>();
  expectTypeOf(event.data.updated_at).toEqualTypeOf<Date>();
  expectTypeOf(event.id).toEqualTypeOf<string>();
  expectTypeOf(ctx.attempt).toEqualTypeOf<number | undefined>();
  // @ts-expect-error the schema's output has no sms_id: only what the schema names is typed
  event.data.sms_id.toUpperCase();
  // @ts-expect-error updated_at is a Date after the transform, not the string of MessageObject
  event.data.updated_at.toUpperCase();
});

// valibot
const vFailed = v.looseObject({ error: v.nullable(v.looseObject({ code: v.string() })) });
receiver.on('message.failed', vFailed, (event) => {
  expectTypeOf(event.data.error?.code).toEqualTypeOf<string | undefined>();
  // @ts-expect-error error may be null
  event.data.error.code;
});

// arktype
const aCompleted = type({ recipients: 'number.integer', completed_at: 'string.date.iso.parse' });
receiver.on('sms.completed', aCompleted, (event) => {
  expectTypeOf(event.data.recipients).toEqualTypeOf<number>();
  expectTypeOf(event.data.completed_at).toEqualTypeOf<Date>();
  // @ts-expect-error sms.completed's data was an open record; with the schema it is the schema's output
  event.data.anything;
});

// Several types: the union keeps narrowing on `type`, every member with the schema's data.
receiver.on(['message.sent', 'message.delivered'], zDelivered, (event) => {
  expectTypeOf(event.type).toEqualTypeOf<'message.sent' | 'message.delivered'>();
  expectTypeOf(event).toEqualTypeOf<
    CheckedWebhookEvent<'message.sent' | 'message.delivered', z.output<typeof zDelivered>>
  >();
  if (event.type === 'message.sent') expectTypeOf(event.data.updated_at).toEqualTypeOf<Date>();
});

// A handler written on its own, typed from the schema.
const onDelivered: CheckedWebhookHandler<'message.delivered', typeof zDelivered> = (event) => {
  expectTypeOf(event.data).toEqualTypeOf<{ to: string; updated_at: Date; [key: string]: unknown }>();
};
receiver.on('message.delivered', zDelivered, onDelivered);
receiver.off('message.delivered', onDelivered);

// Without a schema nothing changes.
receiver.on('message.delivered', (event) => {
  expectTypeOf(event.data).toEqualTypeOf<MessageObject>();
});

// The interface is the Standard Schema one: each library's schema is one.
expectTypeOf(zDelivered).toExtend<StandardSchemaV1>();
expectTypeOf(vFailed).toExtend<StandardSchemaV1>();
expectTypeOf(aCompleted).toExtend<StandardSchemaV1>();
expectTypeOf<
  Parameters<CheckedWebhookHandler<'sms.completed', typeof aCompleted>>[0]['data']
>().toEqualTypeOf<{
  recipients: number;
  completed_at: Date;
}>();

receiver.onInvalid((event, issues) => {
  expectTypeOf(event).toEqualTypeOf<InvalidEvent>();
  expectTypeOf(event.attempt).toEqualTypeOf<number | undefined>();
  expectTypeOf(issues).toEqualTypeOf<readonly SchemaIssue[]>();
  expectTypeOf(issues[0]!.path).toEqualTypeOf<readonly (string | number)[]>();
  // @ts-expect-error the hook never sees the event's data
  event.data;
});

// @ts-expect-error not a schema: a plain object without `~standard`
receiver.on('message.sent', { parse: () => ({}) }, () => {});
// @ts-expect-error not an event type, with a schema too
receiver.on('message.nope', zDelivered, () => {});
// @ts-expect-error the handler's event is the schema's output, which has no `body`
receiver.on('message.replied', zDelivered, (e) => e.data.body.trim());
// off() takes a handler registered with a schema, for every type it was registered for.
type Both = CheckedWebhookEvent<'message.sent' | 'message.delivered', { a: 1 }>;
receiver.off(['message.sent', 'message.delivered'], (event: Both) => event.data.a);
// @ts-expect-error a handler of message.sent only cannot have been registered for message.delivered too
receiver.off(['message.sent', 'message.delivered'], (e: CheckedWebhookEvent<'message.sent', { a: 1 }>) => e);
// @ts-expect-error a schema needs a handler after it
receiver.on('message.sent', zDelivered);
