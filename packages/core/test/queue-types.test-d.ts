// Compiled by `tsc` in the test command, never run: a line that stops compiling fails the suite.
// The handler map every queue package's createWorker takes (bullmq, pg-boss and rabbitmq re-export it).
import type { MessageObject } from '@sms-webhooks/core';
import type { WebhookHandlers } from '@sms-webhooks/core/queue';
import { expectTypeOf } from 'vitest';

export const handlers: WebhookHandlers = {
  'message.failed': (event, ctx) => {
    expectTypeOf(event.data).toEqualTypeOf<MessageObject>();
    expectTypeOf(ctx.attempt).toEqualTypeOf<number | undefined>();
  },
  // Several handlers of one type, sync or async.
  'message.sent': [(event) => event.data.to, async (event) => event.data.status],
  'sms.completed': (event) => {
    // @ts-expect-error sms.completed's data is not a message object
    event.data.to.toUpperCase();
  },
  '*': (event) => {
    expectTypeOf(event.id).toEqualTypeOf<string>();
  },
};
// @ts-expect-error not an event type
export const unknown: WebhookHandlers = { 'message.unknown': () => {} };
