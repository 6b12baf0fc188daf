import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { type AbstractHttpAdapter, HttpAdapterHost } from '@nestjs/core';
import type { Receiver } from '@sms-webhooks/core';
import { type WebhookRequestHandler, webhookMiddleware } from '@sms-webhooks/express';
import { type WebhookPluginOptions, webhookPlugin } from '@sms-webhooks/fastify';
import { optionError } from '@sms-webhooks/internal';
import { SPLIT_OPTIONS, type SplitOptions } from './module-options.js';
import { SMS_WEBHOOK_RECEIVER } from './tokens.js';

const OWNER = '@sms-webhooks/nestjs';

/** The few calls made on each platform's own instance. */
interface ExpressApp {
  all(path: string, handler: WebhookRequestHandler): unknown;
}
interface FastifyApp {
  register(plugin: typeof webhookPlugin, options: WebhookPluginOptions): unknown;
}

/**
 * Mounts the webhook route on the HTTP platform the moment Nest hands the module its adapter: in
 * `NestFactory.create` and in `createNestApplication` alike, that is before `app.init()` registers Nest's
 * body parsers and router. So the route reads the raw bytes itself (the receiver's size limit and read
 * time-out apply), and Nest's JSON parsing stays on for every other route. Express gets the Express
 * adapter's middleware, Fastify the Fastify plugin, whose parsers stay in their own encapsulated context.
 */
@Injectable()
export class SmsWebhookRoute implements OnModuleInit, OnApplicationShutdown {
  readonly #logger = new Logger('SmsWebhooksModule');
  #platform: string | undefined;
  #error: unknown;

  constructor(
    @Inject(HttpAdapterHost) host: HttpAdapterHost,
    @Inject(SMS_WEBHOOK_RECEIVER) private readonly receiver: Receiver,
    @Inject(SPLIT_OPTIONS) private readonly options: SplitOptions,
  ) {
    // A ReplaySubject: it fires at once when the adapter is already set (NestFactory.create), later when
    // it is not yet (Test.createTestingModule().compile(), then createNestApplication()). In an application
    // context without HTTP it never fires (a compiled testing module) or fires with a null adapter
    // (NestFactory.createApplicationContext): there is nothing to mount, and the handlers still register.
    host.init$.subscribe(() => this.#mount(host.httpAdapter));
  }

  #mount(adapter: AbstractHttpAdapter | null | undefined): void {
    if (adapter === null || adapter === undefined) return;
    const { receiver } = this;
    const { path, drainTimeoutMs } = this.options;
    // Thrown from onModuleInit instead, so that it fails app.init() rather than escaping from rxjs.
    try {
      const platform = adapter.getType();
      if (platform === 'express') {
        adapter.getInstance<ExpressApp>().all(path, webhookMiddleware(receiver));
      } else if (platform === 'fastify') {
        adapter.getInstance<FastifyApp>().register(webhookPlugin, { receiver, path, drainTimeoutMs });
      } else {
        throw optionError(
          OWNER,
          `the HTTP platform '${platform}' is not supported: the webhook route needs ` +
            'the raw request body, which this module can read on @nestjs/platform-express and ' +
            '@nestjs/platform-fastify only.',
        );
      }
      this.#platform = platform;
    } catch (error) {
      this.#error = error;
    }
  }

  onModuleInit(): void {
    if (this.#error !== undefined) throw this.#error;
    if (this.#platform) this.#logger.log(`Mapped {${this.options.path}, POST} (${this.#platform})`);
  }

  /** Nest calls this after the HTTP server stopped taking requests: the handlers still running finish. */
  async onApplicationShutdown(): Promise<void> {
    // On Fastify the plugin's onClose hook has drained already (Nest closes the server first): a second
    // drain would wait drainTimeoutMs again for the same stuck handler, and warn again.
    if (this.#platform === 'fastify') return;
    await this.receiver.drain(this.options.drainTimeoutMs);
  }
}
