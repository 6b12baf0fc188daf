import { createReceiver, createTestDelivery, type DedupeStore, MemoryStore } from '@sms-webhooks/core';
import { tenantKey } from '@sms-webhooks/core/store';
import { captureLogger } from '@sms-webhooks/test-helpers';

const SECRET = 'whsec_kept_0123456789abcdefghij';
const deliver = (
  type: 'message.delivered' | 'message.replied' = 'message.delivered',
  attempt = 1,
  data = {},
) => createTestDelivery(type, { secret: SECRET, attempt, data });

describe('keepDeliveries', () => {
  it('keeps each verified delivery, body and record, before the answer', async () => {
    const store = new MemoryStore();
    const receiver = createReceiver({
      secret: SECRET,
      store,
      keepDeliveries: true,
      logger: captureLogger(),
    }).on('message.delivered', () => {});
    const d = deliver('message.delivered', 3);
    const before = Date.now();
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    const kept = await store.keptDelivery(d.event.id);
    expect(kept).toEqual({
      eventId: d.event.id,
      eventType: 'message.delivered',
      attempt: 3,
      receivedAt: expect.any(Number),
      tenant: undefined,
      bytes: Buffer.byteLength(d.body),
      body: d.body,
    });
    expect(kept!.receivedAt).toBeGreaterThanOrEqual(before);
    // Bytes in, the same text out.
    const bytes = deliver();
    await receiver.handle({ rawBody: new TextEncoder().encode(bytes.body), headers: bytes.headers });
    expect((await store.keptDelivery(bytes.event.id))?.body).toBe(bytes.body);
  });

  it('keeps what it then answers with an error: a failed handler, 503 overloaded', async () => {
    const store = new MemoryStore();
    const failing = createReceiver({
      secret: SECRET,
      store,
      keepDeliveries: true,
      respond: 'after-handlers',
      logger: captureLogger(),
    }).on('message.delivered', () => {
      throw new Error('database is down');
    });
    const d = deliver();
    expect((await failing.handle({ rawBody: d.body, headers: d.headers })).status).toBe(500);
    expect((await store.keptDelivery(d.event.id))?.body).toBe(d.body);

    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const busy = createReceiver({
      secret: SECRET,
      store,
      keepDeliveries: true,
      maxConcurrency: 1,
      maxQueue: 0,
      logger: captureLogger(),
    }).on('message.delivered', () => gate);
    const first = deliver();
    const second = deliver();
    expect((await busy.handle({ rawBody: first.body, headers: first.headers })).status).toBe(200);
    const refused = await busy.handle({ rawBody: second.body, headers: second.headers });
    expect(refused).toMatchObject({ status: 503, json: { error: { code: 'overloaded' } } });
    expect((await store.keptDelivery(second.event.id))?.body).toBe(second.body);
    // ... and never claimed it, so the service's retry runs it.
    expect(await store.inspect(second.event.id)).toBeUndefined();
    open();
    await busy.drain();
  });

  it('keeps nothing it did not verify, nothing it ignores, and only `types` when given', async () => {
    const store = new MemoryStore();
    const receiver = createReceiver({
      secret: SECRET,
      store,
      keepDeliveries: { types: ['message.delivered'] },
      logger: captureLogger(),
    })
      .on('message.delivered', () => {})
      .on('message.replied', () => {});
    const forged = createTestDelivery('message.delivered', { secret: 'whsec_someone_else_0123456789' });
    expect((await receiver.handle({ rawBody: forged.body, headers: forged.headers })).status).toBe(400);
    const reply = deliver('message.replied');
    expect((await receiver.handle({ rawBody: reply.body, headers: reply.headers })).status).toBe(200);
    const sent = createTestDelivery('message.sent', { secret: SECRET });
    expect((await receiver.handle({ rawBody: sent.body, headers: sent.headers })).status).toBe(200);
    for (const id of [forged.event.id, reply.event.id, sent.event.id]) {
      expect(await store.keptDelivery(id)).toBeUndefined();
    }
  });

  it("keeps a tenant's delivery under the tenant's key", async () => {
    const store = new MemoryStore();
    const receiver = createReceiver({
      secret: ({ tenant }) => (tenant === 'a/b' ? SECRET : undefined),
      store,
      keepDeliveries: true,
      logger: captureLogger(),
    }).on('message.delivered', () => {});
    const d = deliver();
    await receiver.handle({ rawBody: d.body, headers: d.headers, params: { tenant: 'a/b' } });
    expect(await store.keptDelivery(d.event.id)).toBeUndefined();
    expect(await store.keptDelivery(tenantKey('a/b', d.event.id))).toMatchObject({
      tenant: 'a/b',
      body: d.body,
    });
  });

  it('a body over maxBytes keeps its record only, logged once and then counted', async () => {
    const store = new MemoryStore();
    const logger = captureLogger();
    const receiver = createReceiver({
      secret: SECRET,
      store,
      keepDeliveries: { maxBytes: 600 },
      logger,
    }).on('message.delivered', () => {});
    const big = [
      deliver('message.delivered', 1, { metadata: { note: 'x'.repeat(800) } }),
      deliver('message.delivered', 1, { metadata: { note: 'y'.repeat(800) } }),
    ];
    for (const d of big)
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    expect(await store.keptDelivery(big[0]!.event.id)).toMatchObject({
      body: undefined,
      bytes: Buffer.byteLength(big[0]!.body),
    });
    expect(logger.text().match(/over keepDeliveries\.maxBytes \(600\)/g)).toHaveLength(1);
  });

  it('says at start-up what is wrong: an unknown option, a store that cannot keep', () => {
    expect(() => createReceiver({ secret: SECRET, keepDeliveries: { maxByte: 10 } as never })).toThrow(
      /`keepDeliveries` has an unknown option `maxByte`/,
    );
    expect(() =>
      createReceiver({ secret: SECRET, keepDeliveries: { types: ['message.deliverd'] } as never }),
    ).toThrow(/unknown event type "message.deliverd"/);
    const memory = new MemoryStore();
    const plain: DedupeStore = {
      localKeys: true,
      claim: (k, t, l) => memory.claim(k, t, l),
      complete: (k, t, r) => memory.complete(k, t, r),
      release: (k, t) => memory.release(k, t),
    };
    const logger = captureLogger();
    createReceiver({ secret: SECRET, store: plain, keepDeliveries: true, logger });
    expect(logger.text()).toMatch(/has no keepDelivery\(\) and keptDelivery\(\), so no delivery is kept/);
  });

  it('without the option nothing is kept', async () => {
    const store = new MemoryStore();
    const receiver = createReceiver({ secret: SECRET, store, logger: captureLogger() }).on(
      'message.delivered',
      () => {},
    );
    const d = deliver();
    await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect(await store.keptDelivery(d.event.id)).toBeUndefined();
  });
});
