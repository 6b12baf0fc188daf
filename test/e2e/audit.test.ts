import { type Client, createClient } from '@sms-webhooks/client';
import { createReceiver, type DedupeStore, type EventType, type Receiver } from '@sms-webhooks/core';
import { VirtualClock } from '@sms-webhooks/core/testing';
import { createEmulator, type Emulator } from '@sms-webhooks/emulator';
import { type AuditCategory, type AuditReport, auditWebhook } from '@sms-webhooks/ops';
import { captureLogger } from '@sms-webhooks/test-helpers';
import { STORE_KINDS, type SwappableApp, storeFactory, swappableApp } from './ops-apps.js';

// Each app is audited with each store: the emulator plays the service's whole retry schedule on a
// VirtualClock (the receiver verifies on the same clock), so a night of 500s takes milliseconds.

const stores = storeFactory();
afterAll(() => stores.close());

let emulator: Emulator;
let app: SwappableApp | undefined;
afterEach(async () => {
  await emulator?.close();
  await app?.close();
  app = undefined;
});

interface World {
  clock: VirtualClock;
  client: Client;
  webhookId: string;
  store: DedupeStore;
  receiver: Receiver;
  emit(type: EventType): string;
  audit(): Promise<AuditReport>;
}

/** An emulator on a VirtualClock, a webhook for every type, and an app whose receiver `setUp` builds. */
async function world(
  kind: (typeof STORE_KINDS)[number],
  setUp: (secret: string, store: DedupeStore, clock: VirtualClock) => Receiver,
): Promise<World> {
  const clock = new VirtualClock();
  emulator = createEmulator({ allowInsecureLoopback: true, clock });
  const client = createClient({
    apiKey: 'sk_test_audit',
    baseUrl: await emulator.listen(),
    allowInsecureLoopback: true,
  });
  const placeholder = createReceiver({
    secret: 'whsec_placeholder_until_registered',
    logger: captureLogger(),
  });
  app = await swappableApp(placeholder);
  const webhook = await client.createWebhook({
    url: app.url,
    events: ['message.sent', 'message.delivered', 'message.failed', 'message.replied', 'webhook.test'],
  });
  const store = await stores.make(kind);
  const receiver = setUp(webhook.secret, store, clock);
  app.use(receiver);
  return {
    clock,
    client,
    webhookId: webhook.id,
    store,
    receiver,
    emit: (type) => emulator.emit(type)[0]!.id,
    audit: () => auditWebhook({ client, webhookId: webhook.id, store, receiver, now: () => clock.now() }),
  };
}

/** The event ids of each category, sorted, for one exact comparison. */
function byCategory(report: AuditReport): Record<AuditCategory, string[]> {
  const out: Record<AuditCategory, string[]> = { missed: [], retrying: [], unfinished: [], fine: [] };
  for (const e of report.events) out[e.category].push(e.eventId);
  for (const list of Object.values(out)) list.sort();
  return out;
}
const sorted = (...ids: string[]) => ids.sort();

describe.each(STORE_KINDS)('audit with %s', (kind) => {
  it('an app that answers 500 to message.failed all night: missed once the schedule ends, retrying before', async () => {
    const w = await world(kind, (secret, store, clock) =>
      createReceiver({ secret, store, clock, respond: 'after-handlers', logger: captureLogger() })
        .on('message.sent', () => {})
        .on('message.delivered', () => {})
        .on('message.failed', () => {
          throw new Error('the failure table is missing');
        }),
    );
    const sent = w.emit('message.sent');
    const delivered = w.emit('message.delivered');
    const failed = w.emit('message.failed');
    const replied = w.emit('message.replied'); // no handler: answered 200, ignored by design
    await w.clock.runAll(); // 1 + 5 + 30 + 120 + 720 minutes of retries
    const late = w.emit('message.failed');
    await w.clock.advance(0); // its first attempt only

    const report = await w.audit();
    expect(byCategory(report)).toEqual({
      missed: [failed],
      retrying: [late],
      unfinished: [],
      fine: sorted(sent, delivered, replied),
    });
    const missed = report.events.find((e) => e.eventId === failed)!;
    expect(missed).toMatchObject({ attempts: 6, lastStatusCode: 500, nextAttemptAt: null, stored: 'none' });
    expect(missed.lastError).toMatch(/^HTTP 500/);
    expect(report.events.find((e) => e.eventId === late)).toMatchObject({
      attempts: 1,
      nextAttemptAt: new Date(w.clock.now() + 60_000).toISOString(),
    });
    expect(report.events.find((e) => e.eventId === replied)).toMatchObject({ ignored: true, stored: 'none' });
    expect(report.counts).toEqual({ missed: 1, retrying: 1, unfinished: 0, fine: 3 });
    expect(report.ok).toBe(false);
    expect(report.window.records).toBe(5);
  });

  it('an app that crashes after a fast 200: acknowledged, not finished', async () => {
    let started = 0;
    const w = await world(kind, (secret, store, clock) =>
      createReceiver({ secret, store, clock, retry: false, logger: captureLogger() })
        .on('message.sent', () => {})
        // Fails after the 200: the claim is released and nothing is completed.
        .on('message.delivered', () => {
          throw new Error('out of memory');
        })
        // Never returns: the process froze or died mid-handler, holding the claim.
        .on('message.failed', () => {
          started++;
          return new Promise<void>(() => {});
        }),
    );
    const sent = w.emit('message.sent');
    const delivered = w.emit('message.delivered');
    const frozen = w.emit('message.failed');
    await w.clock.advance(0);
    await vi.waitFor(() => expect(started).toBe(1));
    // The failed run's release is written after the 200, on the store's own time (a PostgreSQL round trip).
    await vi.waitFor(async () => {
      const audited = await w.audit();
      expect(audited.counts.fine).toBe(1);
      expect(audited.events.find((e) => e.eventId === delivered)?.stored).toBe('none');
    });

    const report = await w.audit();
    expect(byCategory(report)).toEqual({
      missed: [],
      retrying: [],
      unfinished: sorted(delivered, frozen),
      fine: [sent],
    });
    expect(report.events.find((e) => e.eventId === delivered)).toMatchObject({
      stored: 'none',
      lastStatusCode: 200,
      deliveredAt: expect.any(String),
    });
    expect(report.events.find((e) => e.eventId === frozen)).toMatchObject({ stored: 'in-flight' });
    expect(report.ok).toBe(false);
  });

  it('a healthy app: every event fine, test deliveries counted apart', async () => {
    const w = await world(kind, (secret, store, clock) =>
      createReceiver({ secret, store, clock, logger: captureLogger() }).on(
        ['message.sent', 'message.delivered', 'message.failed', 'message.replied'],
        () => {},
      ),
    );
    const ids = (['message.sent', 'message.delivered', 'message.failed', 'message.replied'] as const).map(
      w.emit,
    );
    await w.client.testWebhook(w.webhookId);
    await w.clock.advance(0);
    await w.receiver.drain();
    // A redelivery (a second record for the same event) is still one event, and still fine.
    emulator.redeliver(ids[0]!);
    await w.clock.advance(0);

    const report = await w.audit();
    expect(byCategory(report)).toEqual({ missed: [], retrying: [], unfinished: [], fine: sorted(...ids) });
    expect(report.ok).toBe(true);
    expect(report.window).toMatchObject({ records: 5, tests: 1, leftOut: 0 });
    expect(report.events.find((e) => e.eventId === ids[0])).toMatchObject({
      attempts: 2,
      stored: 'completed',
    });
    expect(Date.parse(report.window.from!)).toBeLessThanOrEqual(Date.parse(report.window.to!));
  });
});

describe('auditWebhook options', () => {
  it('refuses a store without inspect, and bad options, before any request', async () => {
    const client = createClient({
      apiKey: 'sk_test_x',
      baseUrl: 'http://127.0.0.1:9',
      allowInsecureLoopback: true,
    });
    const { claim, complete, release } = new (await import('@sms-webhooks/core')).MemoryStore();
    const noInspect = { claim, complete, release, localKeys: true } as DedupeStore;
    await expect(auditWebhook({ client, webhookId: 'wh_1', store: noInspect })).rejects.toMatchObject({
      code: 'ERR_SMS_OPS_NO_INSPECT',
    });
    await expect(auditWebhook({ client, webhookId: 'nope', store: noInspect })).rejects.toMatchObject({
      code: 'ERR_SMS_OPS_OPTIONS',
      message: /wh_… id/,
    });
  });
});
