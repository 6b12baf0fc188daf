import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import type { HandlerContext, Receiver, WebhookEvent } from '@sms-webhooks/core';
import { InjectSmsWebhookReceiver, OnSmsWebhook } from '@sms-webhooks/nestjs';
import { EXAMPLE_SETTINGS, type ExampleSettings } from './settings.js';

/**
 * A provider like any other: the module finds its @OnSmsWebhook methods at start-up and runs them with
 * this instance, so they use its injected dependencies. (`@Inject(…)` is spelt out because `tsx`, which
 * runs this example, emits no decorator metadata; see the README.)
 */
@Injectable()
export class MessageHandlers {
  readonly #log: (line: string) => void;
  readonly #slowHandlerMs: number;

  constructor(
    @Inject(EXAMPLE_SETTINGS) settings: ExampleSettings,
    @InjectSmsWebhookReceiver() receiver: Receiver,
  ) {
    this.#log = settings.log ?? console.log;
    this.#slowHandlerMs = settings.slowHandlerMs ?? 0;
    receiver.onError((error) => this.#log(`error: handler failed for ${error.event.id}: ${error.message}`));
  }

  async #work(): Promise<void> {
    if (this.#slowHandlerMs > 0) await sleep(this.#slowHandlerMs);
  }

  @OnSmsWebhook(['message.sent', 'message.delivered'])
  async onProgress(event: WebhookEvent<'message.sent' | 'message.delivered'>, ctx: HandlerContext) {
    await this.#work();
    this.#log(
      `${event.type} ${event.id}: message ${event.data.id} to ${event.data.to} (attempt ${ctx.attempt ?? '?'})`,
    );
  }

  @OnSmsWebhook('message.failed')
  async onFailed(event: WebhookEvent<'message.failed'>) {
    await this.#work();
    this.#log(`${event.type} ${event.id}: ${event.data.to} failed: ${event.data.error?.code ?? 'unknown'}`);
  }

  @OnSmsWebhook('message.replied')
  async onReplied(event: WebhookEvent<'message.replied'>) {
    await this.#work();
    this.#log(`${event.type} ${event.id}: reply from ${event.data.to}`);
  }

  @OnSmsWebhook('sms.completed')
  async onCompleted(event: WebhookEvent<'sms.completed'>) {
    await this.#work();
    this.#log(`${event.type} ${event.id}: send ${event.data.id} completed`);
  }

  @OnSmsWebhook('webhook.test')
  async onTest(event: WebhookEvent<'webhook.test'>) {
    await this.#work();
    this.#log(`${event.type} ${event.id}: the service says hello`);
  }
}
