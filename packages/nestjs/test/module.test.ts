import type { AddressInfo } from 'node:net';
import { Body, type CanActivate, Controller, Injectable, Module, Post, Scope } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import {
  createTestDelivery,
  type DedupeStore,
  type HandlerContext,
  MemoryStore,
  type Receiver,
  signPayload,
  type WebhookEvent,
} from '@sms-webhooks/core';
import { type CheckedWebhookEvent, DEFAULT_DRAIN_TIMEOUT_MS } from '@sms-webhooks/core/adapter';
import {
  InjectSmsWebhookReceiver,
  OnSmsWebhook,
  SMS_WEBHOOK_RECEIVER,
  SmsWebhooksModule,
} from '@sms-webhooks/nestjs';
import { deferred } from '@sms-webhooks/test-helpers';
import express from 'express';
import { z } from 'zod';
import { splitOptions } from '../src/module-options.js';
import {
  adapterFor,
  captureNestLogger,
  PLATFORMS,
  type Platform,
  post,
  SECRET,
  startApp,
} from './helpers.js';

const PATH = '/webhooks/sms';

/** A plain dependency, injected by type (the test runner emits the decorator metadata Nest reads). */
@Injectable()
class Inbox {
  readonly seen: string[] = [];
  add(line: string): void {
    this.seen.push(line);
  }
}

@Injectable()
class MessageHandlers {
  constructor(readonly inbox: Inbox) {}

  @OnSmsWebhook('message.delivered')
  onDelivered(event: WebhookEvent<'message.delivered'>, ctx: HandlerContext): void {
    this.inbox.add(`delivered ${event.id} to ${event.data.to} attempt ${ctx.attempt}`);
  }

  @OnSmsWebhook(['message.sent', 'message.failed'])
  async onSentOrFailed(event: WebhookEvent<'message.sent' | 'message.failed'>): Promise<void> {
    this.inbox.add(`${event.type} ${event.id}`);
  }

  /** Not a handler: must not be registered. */
  helper(): void {
    this.inbox.add('helper ran');
  }
}

@Controller('api')
class EchoController {
  @Post('echo')
  echo(@Body() body: unknown) {
    return { got: body };
  }
}

/** An app whose one handler never settles, with a 200 ms drain time-out, logging to `logger`. */
function startStuckApp(platform: Platform, logger: ReturnType<typeof captureNestLogger>) {
  @Injectable()
  class Stuck {
    @OnSmsWebhook('message.delivered')
    onDelivered(): Promise<void> {
      return new Promise(() => {});
    }
  }
  return startApp(
    platform,
    {
      imports: [SmsWebhooksModule.forRoot({ secret: SECRET, path: PATH, drainTimeoutMs: 200 })],
      providers: [Stuck],
    },
    { logger },
  );
}

describe.each(PLATFORMS)('SmsWebhooksModule on %s', (platform) => {
  it("runs decorated provider methods with their injected dependencies, typed event and ctx; other methods don't run", async () => {
    const { app, origin, close } = await startApp(platform, {
      imports: [SmsWebhooksModule.forRoot({ secret: SECRET, path: PATH, respond: 'after-handlers' })],
      providers: [Inbox, MessageHandlers],
    });
    try {
      const inbox = app.get(Inbox);
      const delivered = createTestDelivery('message.delivered', { secret: SECRET, attempt: 3 });
      expect(await post(`${origin}${PATH}`, delivered)).toEqual({ status: 200, body: { received: true } });
      const failed = createTestDelivery('message.failed', { secret: SECRET });
      expect((await post(`${origin}${PATH}`, failed)).status).toBe(200);
      const test = createTestDelivery('webhook.test', { secret: SECRET });
      expect(await post(`${origin}${PATH}`, test)).toEqual({
        status: 200,
        body: { received: true, ignored: true },
      });
      expect(inbox.seen).toEqual([
        `delivered ${delivered.event.id} to ${delivered.event.data.to} attempt 3`,
        `message.failed ${failed.event.id}`,
      ]);
    } finally {
      await close();
    }
  });

  it("hands the raw bytes to verification unchanged while Nest's own JSON parsing stays on for other routes", async () => {
    const { app, origin, close } = await startApp(platform, {
      imports: [SmsWebhooksModule.forRoot({ secret: SECRET, path: PATH, respond: 'after-handlers' })],
      controllers: [EchoController],
      providers: [Inbox, MessageHandlers],
    });
    try {
      const echo = await post(`${origin}/api/echo`, {
        body: '{"a":[1,2],"b":"ü"}',
        headers: { 'content-type': 'application/json' },
      });
      expect(echo).toEqual({ status: 201, body: { got: { a: [1, 2], b: 'ü' } } });

      // Bytes any JSON parser would re-serialise differently: indentation, a key order of its own,
      // an escaped slash, non-ASCII text and a trailing newline. Signed as they are.
      const d = createTestDelivery('message.delivered', { secret: SECRET });
      const event = JSON.parse(d.body);
      event.data.metadata = { note: 'caf\u00e9 \u2713 a\\/b' };
      const body = `${JSON.stringify(event, null, 3).replace('"a/b"', '"a\\/b"')}\n`;
      const headers = { 'content-type': 'application/json; charset=utf-8', 'x-service-signature': '' };
      headers['x-service-signature'] = signPayload(body, SECRET);
      expect(await post(`${origin}${PATH}`, { body, headers })).toEqual({
        status: 200,
        body: { received: true },
      });
      expect(app.get(Inbox).seen).toEqual([
        `delivered ${d.event.id} to ${d.event.data.to} attempt undefined`,
      ]);
      // One byte fewer (the trailing newline) and the signature no longer matches.
      const trimmed = await post(`${origin}${PATH}`, { body: body.trimEnd(), headers });
      expect(trimmed.status).toBe(400);
      expect(trimmed.body).toMatchObject({ error: { code: 'signature_mismatch' } });
    } finally {
      await close();
    }
  });

  it('answers 405 to other methods, 200 duplicate to a redelivery, and 500 handler_failed when a handler throws (after-handlers)', async () => {
    let calls = 0;
    @Injectable()
    class Flaky {
      @OnSmsWebhook('message.replied')
      onReplied(): void {
        calls++;
        if (calls === 1) throw new Error('database down');
      }
    }
    const { origin, close } = await startApp(platform, {
      imports: [SmsWebhooksModule.forRoot({ secret: SECRET, path: PATH, respond: 'after-handlers' })],
      providers: [Flaky],
    });
    try {
      const got = await fetch(`${origin}${PATH}`);
      expect(got.status).toBe(405);
      expect(got.headers.get('allow')).toBe('POST');
      const d = createTestDelivery('message.replied', { secret: SECRET });
      const first = await post(`${origin}${PATH}`, d);
      expect(first.status).toBe(500);
      expect(first.body).toMatchObject({ error: { code: 'handler_failed' } });
      expect(await post(`${origin}${PATH}`, d)).toEqual({ status: 200, body: { received: true } });
      expect(await post(`${origin}${PATH}`, d)).toEqual({
        status: 200,
        body: { received: true, duplicate: true },
      });
      expect(calls).toBe(2);
    } finally {
      await close();
    }
  });

  it('builds the receiver in forRootAsync from ConfigService, with a store from another provider', async () => {
    const store = new MemoryStore();
    const STORE = Symbol('store');
    @Module({ providers: [{ provide: STORE, useValue: store }], exports: [STORE] })
    class StoreModule {}

    const { app, origin, close } = await startApp(platform, {
      imports: [
        ConfigModule.forRoot({
          ignoreEnvFile: true,
          load: [() => ({ SMS_WEBHOOK_SECRET: SECRET, SMS_WEBHOOK_PATH: '/from-config' })],
        }),
        SmsWebhooksModule.forRootAsync({
          imports: [ConfigModule, StoreModule],
          inject: [ConfigService, STORE],
          useFactory: async (config: ConfigService, dedupe: DedupeStore) => ({
            secret: config.getOrThrow<string>('SMS_WEBHOOK_SECRET'),
            path: config.getOrThrow<string>('SMS_WEBHOOK_PATH'),
            respond: 'after-handlers' as const,
            store: dedupe,
          }),
        }),
      ],
      providers: [Inbox, MessageHandlers],
    });
    try {
      const receiver = app.get<Receiver>(SMS_WEBHOOK_RECEIVER);
      expect(receiver.options.store).toBe(store);
      const d = createTestDelivery('message.sent', { secret: SECRET });
      expect((await post(`${origin}/from-config`, d)).status).toBe(200);
      expect(app.get(Inbox).seen).toEqual([`message.sent ${d.event.id}`]);
      expect(await store.claim(d.event.id, 'someone-else', 1000)).toBe('completed');
    } finally {
      await close();
    }
  });

  it('injects the receiver with @InjectSmsWebhookReceiver(), and everywhere with isGlobal', async () => {
    @Injectable()
    class Audit {
      readonly errors: string[] = [];
      constructor(@InjectSmsWebhookReceiver() readonly receiver: Receiver) {
        receiver.onError((error) => void this.errors.push(`${error.event.id}: ${error.message}`));
      }
    }
    @Injectable()
    class Broken {
      @OnSmsWebhook('message.sent')
      onSent(): never {
        throw new Error('boom');
      }
    }
    // Neither imports SmsWebhooksModule: only isGlobal makes the receiver reachable from here.
    @Module({ providers: [Audit, Broken] })
    class FeatureModule {}

    const { app, origin, close } = await startApp(platform, {
      imports: [SmsWebhooksModule.forRoot({ secret: SECRET, path: PATH, isGlobal: true }), FeatureModule],
    });
    try {
      const audit = app.get(Audit);
      expect(audit.receiver).toBe(app.get(SMS_WEBHOOK_RECEIVER));
      const d = createTestDelivery('message.sent', { secret: SECRET });
      expect(await post(`${origin}${PATH}`, d)).toEqual({ status: 200, body: { received: true } });
      await audit.receiver.drain();
      expect(audit.errors).toHaveLength(1);
      expect(audit.errors[0]).toContain(d.event.id);
    } finally {
      await close();
    }
  });

  it('on app.close(), waits for handlers still running after their 200 before the shutdown ends', async () => {
    const gate = deferred();
    const started = deferred();
    let finished = false;
    @Injectable()
    class Slow {
      @OnSmsWebhook('message.delivered')
      async onDelivered(): Promise<void> {
        started.resolve();
        await gate.promise;
        finished = true;
      }
    }
    const { origin, close } = await startApp(platform, {
      imports: [SmsWebhooksModule.forRoot({ secret: SECRET, path: PATH })],
      providers: [Slow],
    });
    const d = createTestDelivery('message.delivered', { secret: SECRET });
    expect(await post(`${origin}${PATH}`, d)).toEqual({ status: 200, body: { received: true } });
    await started.promise;
    let closed = false;
    const closing = close().then(() => {
      closed = true;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(false);
    expect(finished).toBe(false);
    gate.resolve();
    await closing;
    expect(finished).toBe(true);
  });

  it('gives up on a handler after drainTimeoutMs and says so through Nest’s Logger', async () => {
    const logger = captureNestLogger();
    const { origin, close } = await startStuckApp(platform, logger);
    const d = createTestDelivery('message.delivered', { secret: SECRET });
    expect((await post(`${origin}${PATH}`, d)).status).toBe(200);
    const forged = createTestDelivery('message.delivered', { secret: 'whsec_someoneelse0123456789abcdef' });
    expect((await post(`${origin}${PATH}`, forged)).status).toBe(400);
    await close(); // resolves although the handler never does
    expect(logger.lines).toContainEqual(
      expect.stringMatching(/^warn \[SmsWebhooks\] sms-webhooks: delivery refused \(signature_mismatch\)/),
    );
    expect(logger.lines).toContainEqual(
      expect.stringMatching(new RegExp(`^warn \\[SmsWebhooks\\] .*drain timed out .*${d.event.id}`)),
    );
    expect(logger.lines).toContainEqual(`log [SmsWebhooksModule] Mapped {${PATH}, POST} (${platform})`);
    expect(logger.lines).toContainEqual(
      'log [SmsWebhooksModule] Stuck.onDelivered handles message.delivered',
    );
    expect(logger.lines.join('\n')).not.toContain(SECRET);
  });

  it('drains once on app.close(): a stuck handler is waited for drainTimeoutMs once, and warned about once', async () => {
    const logger = captureNestLogger();
    const { origin, close } = await startStuckApp(platform, logger);
    const d = createTestDelivery('message.delivered', { secret: SECRET });
    expect((await post(`${origin}${PATH}`, d)).status).toBe(200);
    await close();
    expect(logger.lines.filter((line) => line.includes('drain timed out'))).toHaveLength(1);
  });

  it('is not a Nest route: a global guard that refuses everything does not stop it; Nest middleware runs before it on Fastify only', async () => {
    @Injectable()
    class DenyAll implements CanActivate {
      canActivate(): boolean {
        return false;
      }
    }
    const seen: string[] = [];
    const { origin, close } = await startApp(
      platform,
      {
        imports: [SmsWebhooksModule.forRoot({ secret: SECRET, path: PATH })],
        controllers: [EchoController],
        providers: [{ provide: APP_GUARD, useClass: DenyAll }],
      },
      {
        configure: (app) =>
          app.use((req: { url?: string }, _res: unknown, next: () => void) => {
            seen.push(String(req.url));
            next();
          }),
      },
    );
    try {
      const echo = await post(`${origin}/api/echo`, {
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      expect(echo.status).toBe(403);
      const d = createTestDelivery('message.sent', { secret: SECRET });
      expect(await post(`${origin}${PATH}`, d)).toEqual({
        status: 200,
        body: { received: true, ignored: true },
      });
      // Express: the route sits ahead of everything the app adds after NestFactory.create. Fastify: the
      // platform runs its onRequest hooks (Nest's middleware) for every route.
      expect(seen).toEqual(platform === 'express' ? ['/api/echo'] : ['/api/echo', PATH]);
    } finally {
      await close();
    }
  });

  it('mounts the route at its full path whatever the global prefix', async () => {
    const { origin, close } = await startApp(
      platform,
      {
        imports: [SmsWebhooksModule.forRoot({ secret: SECRET, path: PATH, respond: 'after-handlers' })],
        controllers: [EchoController],
        providers: [Inbox, MessageHandlers],
      },
      { configure: (app) => app.setGlobalPrefix('v1') },
    );
    try {
      const d = createTestDelivery('message.delivered', { secret: SECRET });
      expect((await post(`${origin}${PATH}`, d)).status).toBe(200);
      const echo = await post(`${origin}/v1/api/echo`, {
        body: '{"ok":true}',
        headers: { 'content-type': 'application/json' },
      });
      expect(echo).toEqual({ status: 201, body: { got: { ok: true } } });
    } finally {
      await close();
    }
  });
});

describe.each(PLATFORMS)('NestFactory.create on %s', (platform) => {
  it('mounts the route as well when the adapter exists before the providers do (the production path)', async () => {
    @Module({
      imports: [SmsWebhooksModule.forRoot({ secret: SECRET, path: PATH, respond: 'after-handlers' })],
      controllers: [EchoController],
      providers: [Inbox, MessageHandlers],
    })
    class AppModule {}
    const app = await NestFactory.create(AppModule, adapterFor(platform), { logger: false });
    await app.listen(0, '127.0.0.1');
    try {
      const { port } = app.getHttpServer().address() as AddressInfo;
      const d = createTestDelivery('message.delivered', { secret: SECRET });
      expect(await post(`http://127.0.0.1:${port}${PATH}`, d)).toEqual({
        status: 200,
        body: { received: true },
      });
      expect(app.get(Inbox).seen).toHaveLength(1);
      const echo = await post(`http://127.0.0.1:${port}/api/echo`, {
        body: '{"ok":1}',
        headers: { 'content-type': 'application/json' },
      });
      expect(echo).toEqual({ status: 201, body: { got: { ok: 1 } } });
    } finally {
      await app.close();
    }
  });
});

describe('an Express instance of your own', () => {
  it('with a body parser already mounted: deliveries get 500 raw_body_unavailable and the log says how to mount it', async () => {
    const logger = captureNestLogger();
    const own = express();
    own.use(express.json());
    const moduleRef = await Test.createTestingModule({
      imports: [SmsWebhooksModule.forRoot({ secret: SECRET, path: PATH })],
    }).compile();
    const app = moduleRef.createNestApplication(new ExpressAdapter(own), { logger });
    await app.listen(0, '127.0.0.1');
    try {
      const { port } = app.getHttpServer().address() as AddressInfo;
      const d = createTestDelivery('message.sent', { secret: SECRET });
      const res = await post(`http://127.0.0.1:${port}${PATH}`, d);
      expect(res.status).toBe(500);
      expect(res.body).toMatchObject({ error: { code: 'raw_body_unavailable' } });
      expect(logger.lines).toContainEqual(
        expect.stringMatching(/^error \[SmsWebhooks\] .*Mount the webhook route before express\.json\(\)/),
      );
    } finally {
      await app.close();
    }
  });
});

describe('start-up errors', () => {
  it("takes core's default drain time-out unless drainTimeoutMs is given", () => {
    expect(DEFAULT_DRAIN_TIMEOUT_MS).toBe(10_000);
    expect(splitOptions({ secret: SECRET, path: PATH }).drainTimeoutMs).toBe(DEFAULT_DRAIN_TIMEOUT_MS);
    expect(splitOptions({ secret: SECRET, path: PATH, drainTimeoutMs: 500 }).drainTimeoutMs).toBe(500);
  });

  it.each([
    [{ secret: SECRET }, /^@sms-webhooks\/nestjs: the `path` option must be a route path starting with '\/'/],
    [{ secret: SECRET, path: 'webhooks' }, /`path` option must be a route path/],
    [{ secret: SECRET, path: PATH, drainTimeoutMs: 0 }, /`drainTimeoutMs` must be a positive number/],
    [
      { secret: SECRET, path: PATH, drainTimeoutMs: '5000' },
      /^@sms-webhooks\/nestjs: `drainTimeoutMs` must be a positive number of milliseconds, such as 10000 \(the default\), got the string "5000"\.$/,
    ],
    [{ secret: '', path: PATH }, /^sms-webhooks: `secret` is empty/],
    [{ secret: SECRET, path: PATH, tolerence: 300 }, /^sms-webhooks: unknown option `tolerence`/],
  ] as [Record<string, unknown>, RegExp][])(
    'refuses %j when the module compiles',
    async (options, message) => {
      const builder = Test.createTestingModule({
        // biome-ignore lint/suspicious/noExplicitAny: the mistakes a JavaScript caller (or a cast) can make
        imports: [SmsWebhooksModule.forRoot(options as any)],
      });
      await expect(builder.compile()).rejects.toThrow(message);
    },
  );

  it('refuses a handler on a request-scoped provider when the app starts', async () => {
    @Injectable({ scope: Scope.REQUEST })
    class PerRequest {
      @OnSmsWebhook('message.sent')
      onSent(): void {}
    }
    const moduleRef = await Test.createTestingModule({
      imports: [SmsWebhooksModule.forRoot({ secret: SECRET, path: PATH })],
      providers: [PerRequest],
    }).compile();
    const app = moduleRef.createNestApplication(new ExpressAdapter(), { logger: false });
    await expect(app.init()).rejects.toThrow(
      /^@sms-webhooks\/nestjs: PerRequest.onSent has @OnSmsWebhook, but its provider is request-scoped/,
    );
    await app.close();
  });

  it('refuses an HTTP platform whose raw body it cannot read when the app starts', async () => {
    class OtherAdapter extends ExpressAdapter {
      override getType(): string {
        return 'hyper-express';
      }
    }
    const moduleRef = await Test.createTestingModule({
      imports: [SmsWebhooksModule.forRoot({ secret: SECRET, path: PATH })],
    }).compile();
    const app = moduleRef.createNestApplication(new OtherAdapter(), { logger: false });
    await expect(app.init()).rejects.toThrow(
      "@sms-webhooks/nestjs: the HTTP platform 'hyper-express' is not supported",
    );
    await app.close();
  });

  it('starts without HTTP (an application context): handlers register, no route is mounted', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [SmsWebhooksModule.forRoot({ secret: SECRET, path: PATH, respond: 'after-handlers' })],
      providers: [Inbox, MessageHandlers],
    }).compile();
    const app = await moduleRef.init();
    try {
      const receiver = app.get<Receiver>(SMS_WEBHOOK_RECEIVER);
      const d = createTestDelivery('message.sent', { secret: SECRET });
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
      expect(app.get(Inbox).seen).toEqual([`message.sent ${d.event.id}`]);
    } finally {
      await app.close();
    }
  });
});

describe('@OnSmsWebhook', () => {
  it('refuses an unknown type or an empty list (for JavaScript callers and casts)', () => {
    // biome-ignore lint/suspicious/noExplicitAny: what the types forbid
    const decorate = OnSmsWebhook as (type: any) => unknown;
    expect(() => decorate('message.delivred')).toThrow(
      /^@sms-webhooks\/nestjs: @OnSmsWebhook\("message.delivred"\): not an event type\. Known: message\.sent/,
    );
    expect(() => decorate([])).toThrow(/needs an event type or a non-empty list/);
  });

  it('with a schema: the method gets its output; a mismatch is 422 payload_schema_mismatch and runs nothing', async () => {
    const seen: unknown[] = [];
    const delivered = z.looseObject({
      to: z.string(),
      updated_at: z.iso.datetime().transform((s) => new Date(s)),
    });
    @Injectable()
    class Checked {
      @OnSmsWebhook('message.delivered', delivered)
      onDelivered(event: CheckedWebhookEvent<'message.delivered', z.output<typeof delivered>>): void {
        seen.push(event.data.updated_at);
      }

      // The same event's other handler: a schema refusal runs none of the event's handlers.
      @OnSmsWebhook('message.delivered')
      alsoDelivered(): void {
        seen.push('plain');
      }
    }
    for (const platform of PLATFORMS) {
      seen.length = 0;
      const { origin, close } = await startApp(platform, {
        imports: [SmsWebhooksModule.forRoot({ secret: SECRET, path: PATH, respond: 'after-handlers' })],
        providers: [Checked],
      });
      try {
        const good = createTestDelivery('message.delivered', { secret: SECRET });
        expect((await post(`${origin}${PATH}`, good)).status).toBe(200);
        expect(seen).toEqual([new Date(good.event.data.updated_at), 'plain']);
        seen.length = 0;
        const bad = createTestDelivery('message.delivered', {
          secret: SECRET,
          data: { updated_at: 'not a time' },
        });
        const refused = await post(`${origin}${PATH}`, bad);
        expect(refused.status).toBe(422);
        expect(refused.body).toMatchObject({ error: { code: 'payload_schema_mismatch' } });
        expect(JSON.stringify(refused.body)).not.toContain('not a time');
        expect(seen).toEqual([]);
      } finally {
        await close();
      }
    }
  });

  it('refuses a schema that is no Standard Schema at start-up', () => {
    // biome-ignore lint/suspicious/noExplicitAny: what the types forbid
    const decorate = OnSmsWebhook as (type: any, schema: any) => unknown;
    expect(() => decorate('message.delivered', { parse() {} })).toThrow(
      /^@sms-webhooks\/nestjs: @OnSmsWebhook\(type, schema\): `schema` must be a Standard Schema v1 validator/,
    );
    expect(() => decorate('message.delivered', undefined)).toThrow(/Standard Schema/);
  });

  it('adds up stacked decorators, registers a provider behind two tokens once, and finds handlers on controllers too', async () => {
    const seen: string[] = [];
    @Controller('orders')
    class HandlingController {
      @OnSmsWebhook('message.delivered')
      onDelivered(): void {
        seen.push('controller');
      }
    }
    @Injectable()
    class Stacked {
      @OnSmsWebhook('message.sent')
      @OnSmsWebhook(['message.delivered', 'message.sent'])
      onEither(event: WebhookEvent<'message.sent' | 'message.delivered'>): void {
        seen.push(event.type);
      }
    }
    const { origin, close } = await startApp('express', {
      imports: [SmsWebhooksModule.forRoot({ secret: SECRET, path: PATH, respond: 'after-handlers' })],
      controllers: [HandlingController],
      providers: [Stacked, { provide: 'alias', useExisting: Stacked }],
    });
    try {
      for (const type of ['message.sent', 'message.delivered'] as const) {
        expect((await post(`${origin}${PATH}`, createTestDelivery(type, { secret: SECRET }))).status).toBe(
          200,
        );
      }
      expect(seen).toEqual(['message.sent', 'message.delivered', 'controller']);
    } finally {
      await close();
    }
  });
});
