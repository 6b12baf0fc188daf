import { type Client, createClient } from '@sms-webhooks/client';
import { createReceiver, MemoryStore } from '@sms-webhooks/core';
import { createEmulator, type Emulator } from '@sms-webhooks/emulator';
import {
  checkCoverage,
  rotateWebhook,
  smokeTest,
  syncWebhook,
  type WebhookDeclaration,
} from '@sms-webhooks/ops';
import { captureLogger } from '@sms-webhooks/test-helpers';
import { type SwappableApp, swappableApp } from './ops-apps.js';

let emulator: Emulator;
let client: Client;
let app: SwappableApp | undefined;

beforeEach(async () => {
  emulator = createEmulator({ allowInsecureLoopback: true });
  client = createClient({
    apiKey: 'sk_test_code',
    baseUrl: await emulator.listen(),
    allowInsecureLoopback: true,
  });
});
afterEach(async () => {
  await emulator.close();
  await app?.close();
  app = undefined;
});

const declaration = (url: string) => ({
  url,
  events: ['message.delivered', 'message.failed', 'webhook.test'] satisfies WebhookDeclaration['events'],
  description: 'orders service',
});

describe('syncWebhook', () => {
  it('creates once, then leaves it as it is on the next runs, and never touches another URL', async () => {
    const foreign = await client.createWebhook({
      url: 'https://other.example/hook',
      events: ['message.sent'],
    });
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await syncWebhook(client, declaration('https://app.example/sms')));
    expect(runs.map((r) => r.action)).toEqual(['created', 'unchanged', 'unchanged']);
    const created = runs[0]!;
    if (created.action !== 'created') throw new Error('unreachable');
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.webhook).not.toHaveProperty('secret');
    expect(runs[1]).toMatchObject({ webhook: { id: created.webhook.id }, others: [] });
    expect(JSON.stringify(runs.slice(1))).not.toContain('whsec_');

    const live = emulator.webhooks();
    expect(live.map((w) => w.id).sort()).toEqual([created.webhook.id, foreign.id].sort());
    expect(live.find((w) => w.id === foreign.id)).toEqual(foreign);
  });

  it('reports a webhook with the URL that differs, changing nothing', async () => {
    const old = await client.createWebhook({ url: 'https://app.example/sms', events: ['message.delivered'] });
    const result = await syncWebhook(client, declaration('https://app.example/sms'));
    expect(result).toEqual({
      action: 'mismatch',
      webhooks: [
        {
          webhook: expect.objectContaining({ id: old.id }),
          differences: [
            'does not subscribe to message.failed, webhook.test',
            'description is "", not "orders service"',
          ],
        },
      ],
    });
    expect(emulator.webhooks()).toHaveLength(1);
  });

  it('refuses a declaration with a typo before any request', async () => {
    const bad = {
      url: 'https://app.example/sms',
      events: ['message.delivred'],
    } as unknown as WebhookDeclaration;
    await expect(syncWebhook(client, bad)).rejects.toMatchObject({
      code: 'ERR_SMS_OPS_OPTIONS',
      message: /unknown event type "message.delivred"/,
    });
    expect(emulator.webhooks()).toEqual([]);
  });
});

describe('checkCoverage', () => {
  it('names handlers nobody subscribed to and subscriptions nothing handles', () => {
    const receiver = createReceiver({ secret: 'whsec_coverage_0123456789abcdef0123' })
      .on('message.delivered', () => {})
      .on('message.sent', () => {});
    expect(checkCoverage(declaration('https://x').events, receiver.handledTypes())).toEqual({
      notSubscribed: ['message.sent'],
      notHandled: ['message.failed'],
      ok: false,
    });
    receiver.onAny(() => {});
    expect(
      checkCoverage(['message.sent', 'message.delivered', 'webhook.test'], receiver.handledTypes()),
    ).toEqual({
      notSubscribed: [],
      notHandled: [],
      ok: true,
    });
  });
});

describe('smokeTest', () => {
  it('is ok when the app answers the test delivery 2xx, and says what it answered otherwise', async () => {
    const wrong = createReceiver({ secret: 'whsec_not_the_webhooks_secret_0123', logger: captureLogger() });
    app = await swappableApp(wrong);
    const webhook = await client.createWebhook({ url: app.url, events: ['message.sent', 'webhook.test'] });
    const refused = await smokeTest(client, webhook.id, { pollMs: 20 });
    expect(refused).toMatchObject({ ok: false, webhookId: webhook.id, statusCode: 400 });
    expect(refused.error).toMatch(/signature_mismatch/);
    expect(refused.error).not.toContain(webhook.secret);

    app.use(createReceiver({ secret: webhook.secret, logger: captureLogger() }));
    expect(await smokeTest(client, webhook.id, { pollMs: 20 })).toMatchObject({
      ok: true,
      statusCode: 200,
      error: null,
      eventId: expect.stringMatching(/^evt_/),
    });
  });

  it('gives up after timeoutMs when no answer is recorded', async () => {
    // Accepts the connection and never answers: the attempt stays under way.
    const { createServer } = await import('node:http');
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const { port } = silent.address() as { port: number };
    const webhook = await client.createWebhook({
      url: `http://127.0.0.1:${port}/`,
      events: ['webhook.test'],
    });
    const result = await smokeTest(client, webhook.id, { timeoutMs: 150, pollMs: 20 });
    expect(result).toMatchObject({
      ok: false,
      statusCode: null,
      error: expect.stringMatching(/within 150 ms/),
    });
    silent.closeAllConnections();
    silent.close();
  });
});

describe('rotateWebhook', () => {
  it('switches the app to a new secret, with both secrets as the middle step, and no delivery refused', async () => {
    const store = new MemoryStore();
    const handled: string[] = [];
    const receiverFor = (secret: string | string[]) =>
      createReceiver({ secret, store, logger: captureLogger() }).on(
        ['message.delivered', 'message.failed'],
        (event) => void handled.push(event.id),
      );
    app = await swappableApp(
      createReceiver({ secret: 'whsec_placeholder_0123456789abcdef', logger: captureLogger() }),
    );
    const old = await client.createWebhook(declaration(app.url));
    app.use(receiverFor(old.secret));

    const sent: string[] = [];
    const emit = () => sent.push(...emulator.emit('message.delivered').map((e) => e.id));
    emit();
    const logger = captureLogger();
    let handedOver: string | undefined;
    const result = await rotateWebhook(client, {
      webhookId: old.id,
      retryMs: 50,
      answerTimeoutMs: 2000,
      async handOver(secret) {
        handedOver = secret;
        // The middle step, as a secret manager and a rolling deploy would do it: the app accepts both.
        app!.use(receiverFor([old.secret, secret]));
        emit(); // events keep coming, through both webhooks
      },
      onSmokeTest: (r) => logger.warn('smoke test', r),
    });
    expect(handedOver).toMatch(/^whsec_/);
    expect(handedOver).not.toBe(old.secret);
    expect(result).toMatchObject({
      old: { id: old.id },
      replacement: { url: app.url },
      accepted: { ok: true },
      smokeTests: 1,
    });
    expect(JSON.stringify(result)).not.toContain('whsec_');
    expect(logger.text()).not.toContain(handedOver);
    expect(emulator.webhooks().map((w) => w.id)).toEqual([result.replacement.id]);
    expect(emulator.webhooks()[0]).toMatchObject({
      events: ['message.delivered', 'message.failed', 'webhook.test'],
      description: 'orders service',
    });

    // In the middle step the event went through both webhooks, and the app accepted it from each.
    const middle = sent[1]!;
    for (const id of [old.id, result.replacement.id]) {
      expect(emulator.deliveries(id).find((d) => d.event_id === middle)).toMatchObject({
        last_status_code: 200,
      });
    }

    // The last step: the new secret alone.

    app.use(receiverFor(handedOver!));
    emit();
    await emulator.waitForIdle(5000);
    expect(app.answers.length).toBeGreaterThan(sent.length);
    expect(app.answers.filter((s) => s < 200 || s >= 300)).toEqual([]);
    expect([...new Set(handled)].sort()).toEqual([...sent].sort());
    expect(handled).toHaveLength(sent.length); // events sent through both webhooks ran once
  });

  it('deletes nothing when the app never accepts the new secret, and names both webhooks', async () => {
    app = await swappableApp(
      createReceiver({ secret: 'whsec_placeholder_0123456789abcdef', logger: captureLogger() }),
    );
    const old = await client.createWebhook(declaration(app.url));
    app.use(createReceiver({ secret: old.secret, logger: captureLogger() }));
    let handedOver = '';
    const error = await rotateWebhook(client, {
      webhookId: old.id,
      timeoutMs: 300,
      retryMs: 100,
      answerTimeoutMs: 1000,
      handOver: (secret) => {
        handedOver = secret;
      },
    }).catch((e: Error & { code: string }) => e);
    expect(error).toMatchObject({ code: 'ERR_SMS_OPS_NOT_ACCEPTED' });
    const live = emulator.webhooks();
    expect(live).toHaveLength(2);
    expect((error as Error).message).toContain(old.id);
    expect((error as Error).message).toContain(live.find((w) => w.id !== old.id)!.id);
    expect((error as Error).message).toMatch(/signature_mismatch/);
    expect((error as Error).message).not.toContain(handedOver);
    expect((error as Error).message).not.toContain(old.secret);
  });

  it('refuses a replacement without webhook.test, and an unknown webhook, before creating anything', async () => {
    const old = await client.createWebhook({ url: 'https://app.example/sms', events: ['message.sent'] });
    const handOver = () => {};
    await expect(rotateWebhook(client, { webhookId: old.id, handOver })).rejects.toMatchObject({
      code: 'ERR_SMS_OPS_OPTIONS',
      message: /webhook\.test/,
    });
    await expect(rotateWebhook(client, { webhookId: 'wh_gone', handOver })).rejects.toMatchObject({
      code: 'ERR_SMS_OPS_NO_WEBHOOK',
    });
    expect(emulator.webhooks().map((w) => w.id)).toEqual([old.id]);
  });
});
