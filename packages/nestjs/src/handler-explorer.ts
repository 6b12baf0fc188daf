import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { HandlerContext, Receiver } from '@sms-webhooks/core';
import { optionError } from '@sms-webhooks/internal';
import { handlerRegistrations } from './on-sms-webhook.js';
import { SMS_WEBHOOK_RECEIVER } from './tokens.js';

const OWNER = '@sms-webhooks/nestjs';

/** Finds every `@OnSmsWebhook` method on the app's providers and controllers and registers it. */
@Injectable()
export class SmsWebhookHandlerExplorer implements OnModuleInit {
  readonly #logger = new Logger('SmsWebhooksModule');

  constructor(
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(SMS_WEBHOOK_RECEIVER) private readonly receiver: Receiver,
  ) {}

  onModuleInit(): void {
    // One instance can sit behind several tokens (useExisting): its handlers register once.
    const seen = new Set<object>();
    let count = 0;
    for (const wrapper of [...this.discovery.getProviders(), ...this.discovery.getControllers()]) {
      const instance: unknown = wrapper.instance;
      if (typeof instance !== 'object' || instance === null || seen.has(instance)) continue;
      seen.add(instance);
      for (const name of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
        const target = instance as Record<string, (...args: unknown[]) => unknown>;
        const registrations = handlerRegistrations(target[name]);
        if (registrations === undefined) continue;
        const where = `${instance.constructor?.name ?? String(wrapper.token)}.${name}`;
        if (!wrapper.isDependencyTreeStatic() || wrapper.isTransient) {
          throw optionError(
            OWNER,
            `${where} has @OnSmsWebhook, but its provider is request-scoped or ` +
              'transient (or depends on one): put webhook handlers on singleton providers.',
          );
        }
        // Looked up at call time, so the method a test spies on is the one that runs.
        // `unknown`: the same wrapper serves registrations with a schema (the schema's output) and without.
        const handler = (event: unknown, ctx: HandlerContext) => target[name]!(event, ctx);
        // Instrumentation (@sms-webhooks/otel's span names and handler.name attribute) reads the function's
        // name: the method's, not this wrapper's.
        Object.defineProperty(handler, 'name', { value: where });
        for (const { types, schema } of registrations) {
          if (schema === undefined) this.receiver.on(types, handler);
          else this.receiver.on(types, schema, handler);
          this.#logger.log(`${where} handles ${types.join(', ')}${schema ? ' (with its schema)' : ''}`);
        }
        count++;
      }
    }
    if (count === 0) {
      this.#logger.warn(
        'No @OnSmsWebhook methods found on any provider: deliveries are answered 200 ignored unless ' +
          'handlers are added with receiver.on().',
      );
    }
  }
}
