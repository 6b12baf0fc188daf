// Compiled by `tsc` in the test command, never run: a line that stops compiling fails the suite.
import { Injectable } from '@nestjs/common';
import type { HandlerContext, Receiver, WebhookEvent } from '@sms-webhooks/core';
import { InjectSmsWebhookReceiver, OnSmsWebhook, SmsWebhooksModule } from '@sms-webhooks/nestjs';
import { expectTypeOf } from 'vitest';

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
