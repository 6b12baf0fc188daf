// Compiled by `tsc` in the test command, never run: a line that stops compiling fails the suite.
import { Injectable } from '@nestjs/common';
import type { HandlerContext, Receiver, WebhookEvent } from '@sms-webhooks/core';
import type { CheckedWebhookEvent } from '@sms-webhooks/core/adapter';
import {
  type CheckedSmsWebhookHandlerMethod,
  InjectSmsWebhookReceiver,
  OnSmsWebhook,
  SmsWebhooksModule,
} from '@sms-webhooks/nestjs';
import { type } from 'arktype';
import * as v from 'valibot';
import { expectTypeOf } from 'vitest';
import { z } from 'zod';

const zDelivered = z.looseObject({
  to: z.string(),
  updated_at: z.iso.datetime().transform((s) => new Date(s)),
});
type Delivered = z.output<typeof zDelivered>;
const vFailed = v.looseObject({ error: v.nullable(v.looseObject({ code: v.string() })) });
const aCompleted = type({ recipients: 'number.integer' });

@Injectable()
export class CheckedHandlers {
  // zod 4: event.data is the schema's output, transforms included.
  @OnSmsWebhook('message.delivered', zDelivered)
  delivered(event: CheckedWebhookEvent<'message.delivered', Delivered>, ctx: HandlerContext) {
    expectTypeOf(event.data.updated_at).toEqualTypeOf<Date>();
    expectTypeOf(event.type).toEqualTypeOf<'message.delivered'>();
    expectTypeOf(ctx.attempt).toEqualTypeOf<number | undefined>();
  }

  // valibot, on a list: the union keeps its types, each with the schema's data.
  @OnSmsWebhook(['message.failed', 'message.sent'], vFailed)
  failed(event: CheckedWebhookEvent<'message.failed' | 'message.sent', v.InferOutput<typeof vFailed>>) {
    expectTypeOf(event.data.error?.code).toEqualTypeOf<string | undefined>();
  }

  // arktype; a method may take less than it is given.
  @OnSmsWebhook('sms.completed', aCompleted)
  completed(event: { data: { recipients: number } }) {
    return event.data.recipients;
  }

  @OnSmsWebhook('message.delivered', zDelivered)
  noArguments() {}

  // @ts-expect-error with a schema the data is the schema's output: updated_at is a Date, not a string
  @OnSmsWebhook('message.delivered', zDelivered)
  rawData(event: WebhookEvent<'message.delivered'>) {
    void event;
  }

  // @ts-expect-error the method wants a field the schema does not give
  @OnSmsWebhook('message.delivered', zDelivered)
  missingField(event: CheckedWebhookEvent<'message.delivered', Delivered & { sms_id: string }>) {
    void event;
  }

  // @ts-expect-error the schema's output is for message.delivered, the method takes message.failed events
  @OnSmsWebhook('message.delivered', zDelivered)
  wrongType(event: CheckedWebhookEvent<'message.failed', Delivered>) {
    void event;
  }

  // @ts-expect-error not a Standard Schema
  @OnSmsWebhook('message.delivered', { parse: (x: unknown) => x })
  notASchema() {}
}

// A method written on its own, typed from the schema.
const onDelivered: CheckedSmsWebhookHandlerMethod<'message.delivered', typeof zDelivered> = (event) => {
  expectTypeOf(event.data.updated_at).toEqualTypeOf<Date>();
};
void onDelivered;

@Injectable()
export class Handlers {
  constructor(@InjectSmsWebhookReceiver() readonly receiver: Receiver) {}

  @OnSmsWebhook('message.delivered')
  delivered(event: WebhookEvent<'message.delivered'>, ctx: HandlerContext) {
    expectTypeOf(event.data.to).toEqualTypeOf<string>();
    expectTypeOf(ctx.attempt).toEqualTypeOf<number | undefined>();
  }

  @OnSmsWebhook(['message.sent', 'message.failed'])
  async sentOrFailed(event: WebhookEvent<'message.sent' | 'message.failed'>) {
    expectTypeOf(event.type).toEqualTypeOf<'message.sent' | 'message.failed'>();
  }

  // A handler may take a wider event than it is given, or nothing at all.
  @OnSmsWebhook('sms.completed')
  anyEvent(event: WebhookEvent) {
    return event.id;
  }

  @OnSmsWebhook('webhook.test')
  noArguments() {}

  // @ts-expect-error not an event type
  @OnSmsWebhook('message.delivred')
  typo(event: WebhookEvent<'message.delivered'>) {
    void event;
  }

  // @ts-expect-error not an event type inside a list
  @OnSmsWebhook(['message.sent', 'message.nope'])
  typoInList() {}

  // @ts-expect-error the method takes message.failed events, the decorator gives message.delivered ones
  @OnSmsWebhook('message.delivered')
  wrongEvent(event: WebhookEvent<'message.failed'>) {
    void event;
  }

  // @ts-expect-error a list's handler must take every type in the list
  @OnSmsWebhook(['message.sent', 'sms.completed'])
  tooNarrow(event: WebhookEvent<'message.sent'>) {
    void event;
  }

  // @ts-expect-error the second argument is the handler context
  @OnSmsWebhook('message.sent')
  wrongContext(_event: WebhookEvent<'message.sent'>, _ctx: string) {}
}

SmsWebhooksModule.forRoot({ secret: 'whsec_x', path: '/webhooks/sms', isGlobal: true, drainTimeoutMs: 5000 });
SmsWebhooksModule.forRoot({ secret: ['whsec_a', 'whsec_b'], path: '/w', respond: 'after-handlers' });
// @ts-expect-error `path` is required
SmsWebhooksModule.forRoot({ secret: 'whsec_x' });
// @ts-expect-error a misspelt option
SmsWebhooksModule.forRoot({ secret: 'whsec_x', path: '/w', tolerence: 300 });
// @ts-expect-error `respond` has two values
SmsWebhooksModule.forRoot({ secret: 'whsec_x', path: '/w', respond: 'later' });

SmsWebhooksModule.forRootAsync({
  isGlobal: true,
  inject: ['SECRET'],
  useFactory: (secret: string) => ({ secret, path: '/webhooks/sms' }),
});
SmsWebhooksModule.forRootAsync({
  // @ts-expect-error the factory must give a `path`
  useFactory: () => ({ secret: 'whsec_x' }),
});
