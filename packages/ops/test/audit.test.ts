import type { Client, WebhookDelivery } from '@sms-webhooks/client';
import { createReceiver, createTestDelivery, MemoryStore } from '@sms-webhooks/core';
import { tenantKey } from '@sms-webhooks/core/store';
import { auditWebhook } from '@sms-webhooks/ops';
import { RedisStore } from '@sms-webhooks/redis';
import { captureLogger } from '@sms-webhooks/test-helpers';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { Redis } from 'ioredis';

// The service's deliveries list is the one part played here (a client that answers a list): a real
// service cannot be made to list 20,000 records or a malformed one. Stores and receivers are real.

const NOW = Date.parse('2026-11-28T12:00:00.000Z');
const HOUR = 3_600_000;

function record(eventId: string, over: Partial<WebhookDelivery> = {}): WebhookDelivery {
  const at = new Date(NOW - 60_000).toISOString();
  return {
    id: `whd_${eventId.slice(4)}`,
    object: 'webhook_delivery',
    status: 'pending',
    attempts: 1,
    created_at: at,
    event_id: eventId,
    event_type: 'message.delivered',
    delivered_at: at,
    last_error: null,
    last_status_code: 200,
    next_attempt_at: null,
    test: false,
    ...over,
  };
}

function service(lists: Record<string, unknown[]>): Pick<Client, 'listDeliveries'> {
  return {
    listDeliveries: async (id: string) => ({ object: 'list', data: (lists[id] ?? []) as WebhookDelivery[] }),
  };
}

const handles = { handledTypes: () => ({ types: ['message.delivered'], any: false }) };

describe('auditWebhook at the size of a burst', () => {
  let redis: RedisServer;
  let client: Redis;
  beforeAll(async () => {
    redis = await startRedisServer();
    client = new Redis(redis.url);
  });
  afterAll(async () => {
    await client?.quit();
    await redis?.stop();
  });

  it('audits 20,000 events against a RedisStore in batches, with progress, and finds the one unfinished', async () => {
    const prefix = `burst-${Date.now()}:`;
    // A short command time-out, as a busy Redis would see: 20,000 reads at once overran it.
    const store = new RedisStore({ client, clientType: 'ioredis', prefix, commandTimeoutMs: 500 });
    const ids = Array.from({ length: 20_000 }, (_, i) => `evt_burst_${String(i).padStart(6, '0')}`);
    const pipeline = client.pipeline();
    for (const id of ids.slice(1)) pipeline.set(store.keyFor(id), 'c:t', 'PX', HOUR);
    await pipeline.exec();
    const progress: number[] = [];
    const report = await auditWebhook({
      client: service({ wh_burst: ids.map((id) => record(id)) }),
      webhookId: 'wh_burst',
      store,
      receiver: handles,
      now: () => NOW,
      onProgress: (read, total) => {
        expect(total).toBe(20_000);
        progress.push(read);
      },
    });
    expect(report.counts).toEqual({ missed: 0, unfinished: 1, retrying: 0, fine: 19_999 });
    expect(report.events[0]).toMatchObject({ eventId: ids[0], category: 'unfinished', stored: 'none' });
    expect(report).toMatchObject({ trusted: true, warnings: [], ok: false });
    expect(progress.length).toBe(40);
    expect(progress.at(-1)).toBe(20_000);
  });

  it('falls back to inspect, a bounded number at a time, for a store without inspectMany', async () => {
    const memory = new MemoryStore({ now: () => NOW });
    let inFlight = 0;
    let most = 0;
    const store = {
      claim: memory.claim.bind(memory),
      complete: memory.complete.bind(memory),
      release: memory.release.bind(memory),
      localKeys: true,
      inspect: async (key: string) => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setImmediate(r));
        inFlight--;
        return memory.inspect(key);
      },
    };
    const ids = Array.from({ length: 2000 }, (_, i) => `evt_each_${i}`);
    for (const id of ids) {
      await memory.claim(id, 't', HOUR);
      await memory.complete(id, 't', HOUR);
    }
    const report = await auditWebhook({
      client: service({ wh_each: ids.map((id) => record(id)) }),
      webhookId: 'wh_each',
      store,
      receiver: handles,
      now: () => NOW,
    });
    expect(report.counts.fine).toBe(2000);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(32);
  });
});

describe("auditWebhook and the service's malformed answers", () => {
  const store = new MemoryStore();
  it.each([
    [
      'created_at',
      1_732_800_000,
      /record 0 \("whd_one"\) has `created_at` 1732800000, not an ISO 8601 timestamp/,
    ],
    ['attempts', '2', /has `attempts` "2", not a whole number/],
    ['delivered_at', 'yesterday', /has `delivered_at` "yesterday", not an ISO 8601 timestamp or null/],
    ['event_id', null, /has `event_id` null, not an event id/],
  ])(
    'a record whose %s is %j is the service answer, named, never a store error',
    async (field, value, message) => {
      const error = await auditWebhook({
        client: service({ wh_bad: [{ ...record('evt_one'), [field]: value }] }),
        webhookId: 'wh_bad',
        store,
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'OpsError', code: 'ERR_SMS_OPS_BAD_ANSWER', message });
      expect((error as Error).message).toMatch(/deliveries list of wh_bad is malformed/);
      expect((error as Error).message).not.toMatch(/store:/);
    },
  );

  it('a list that is not a list is malformed too', async () => {
    await expect(
      auditWebhook({
        client: service({ wh_bad: 'oops' as unknown as unknown[] }),
        webhookId: 'wh_bad',
        store,
      }),
    ).rejects.toMatchObject({ code: 'ERR_SMS_OPS_BAD_ANSWER', message: /`data` is "oops"/ });
  });
});

describe('auditWebhook for a tenant', () => {
  it("reads the tenant's keys as the receiver wrote them, names like a/b included", async () => {
    const store = new MemoryStore();
    const secrets: Record<string, string> = {
      'a/b': 'whsec_tenant_ab_0123456789abcdef',
      acme: 'whsec_acme_0123456789abcdef',
    };
    const receiver = createReceiver({
      secret: ({ tenant }) => secrets[tenant],
      store,
      respond: 'after-handlers',
      logger: captureLogger(),
    }).on('message.delivered', () => {});
    const delivered: string[] = [];
    for (const tenant of ['a/b', 'acme']) {
      const d = createTestDelivery('message.delivered', { secret: secrets[tenant]! });
      const out = await receiver.handle({ rawBody: d.body, headers: d.headers, params: { tenant } });
      expect(out.status).toBe(200);
      delivered.push(d.event.id);
    }
    expect((await store.inspect(tenantKey('a/b', delivered[0]!)))?.state).toBe('completed');
    const lists = { wh_ab: [record(delivered[0]!)], wh_acme: [record(delivered[1]!)] };
    const audit = (webhookId: string, tenant?: string) =>
      auditWebhook({ client: service(lists), webhookId, store, tenant, receiver, now: () => Date.now() });
    expect(await audit('wh_ab', 'a/b')).toMatchObject({ ok: true, counts: { fine: 1 } });
    expect(await audit('wh_acme', 'acme')).toMatchObject({ ok: true, counts: { fine: 1 } });
    // Without the tenant the keys are not found: the report says it cannot be trusted, not "unfinished".
    expect(await audit('wh_ab')).toMatchObject({ ok: false, trusted: false, counts: { unfinished: 1 } });
    await expect(
      auditWebhook({ client: service(lists), webhookId: 'wh_ab', store, tenant: '' as string }),
    ).rejects.toMatchObject({ code: 'ERR_SMS_OPS_OPTIONS' });
  });
});

describe('auditWebhook never cries wolf', () => {
  it('with the wrong store or prefix, says the report cannot be trusted', async () => {
    const store = new MemoryStore({ now: () => NOW });
    const ids = ['evt_w1', 'evt_w2', 'evt_w3'];
    for (const id of ids) {
      await store.claim(`right:${id}`, 't', HOUR);
      await store.complete(`right:${id}`, 't', HOUR);
    }
    const lists = { wh_w: ids.map((id) => record(id)) };
    const run = (keyPrefix: string) =>
      auditWebhook({
        client: service(lists),
        webhookId: 'wh_w',
        store,
        keyPrefix,
        receiver: handles,
        now: () => NOW,
      });
    expect(await run('right:')).toMatchObject({ ok: true, trusted: true, warnings: [] });
    const wrong = await run('wrong:');
    expect(wrong).toMatchObject({ ok: false, trusted: false, counts: { unfinished: 3 } });
    expect(wrong.warnings[0]).toMatch(
      /None of the 3 delivered event\(s\) is in the store.*cannot be trusted/,
    );
  });

  it('warns when it was not told what the app handles', async () => {
    const store = new MemoryStore({ now: () => NOW });
    await store.claim('evt_h1', 't', HOUR);
    await store.complete('evt_h1', 't', HOUR);
    const lists = { wh_h: [record('evt_h1'), record('evt_h2', { event_type: 'message.sent' })] };
    const report = await auditWebhook({ client: service(lists), webhookId: 'wh_h', store, now: () => NOW });
    expect(report.trusted).toBe(true);
    expect(report.warnings).toEqual([expect.stringMatching(/^Not told which event types the app handles/)]);
    const told = await auditWebhook({
      client: service(lists),
      webhookId: 'wh_h',
      store,
      receiver: handles,
      now: () => NOW,
    });
    expect(told).toMatchObject({ ok: true, warnings: [] });
  });

  it('joins several webhooks: an event delivered through either is delivered', async () => {
    const store = new MemoryStore({ now: () => NOW });
    await store.claim('evt_j1', 't', HOUR);
    await store.complete('evt_j1', 't', HOUR);
    const lists = {
      wh_old: [
        record('evt_j1', { delivered_at: null, last_status_code: 500, attempts: 6, last_error: 'HTTP 500' }),
      ],
      wh_new: [record('evt_j1')],
    };
    const report = await auditWebhook({
      client: service(lists),
      webhookId: ['wh_old', 'wh_new'],
      store,
      receiver: handles,
      now: () => NOW,
    });
    expect(report).toMatchObject({ webhookId: 'wh_old', webhookIds: ['wh_old', 'wh_new'], ok: true });
    expect(report.events).toEqual([
      expect.objectContaining({ eventId: 'evt_j1', category: 'fine', attempts: 6 }),
    ]);
  });
});
