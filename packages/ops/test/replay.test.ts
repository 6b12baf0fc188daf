import { createReceiver, createTestDelivery, MemoryStore } from '@sms-webhooks/core';
import { replayEvents } from '@sms-webhooks/ops';
import { captureLogger } from '@sms-webhooks/test-helpers';

const SECRET = 'whsec_replay_0123456789abcdefghij';

/** An app whose handler fails after its fast 200 (the claim is given back, the body kept). */
function failingApp(store: MemoryStore, options: Record<string, unknown> = {}) {
  return createReceiver({
    secret: SECRET,
    store,
    keepDeliveries: true,
    retry: false,
    logger: captureLogger(),
    ...options,
  }).on('message.delivered', () => {
    throw new Error('database is down');
  });
}

describe('replayEvents', () => {
  it("runs a tenant's event on its tenant, once", async () => {
    const store = new MemoryStore();
    const app = createReceiver({
      secret: ({ tenant }) => (tenant === 'a/b' ? SECRET : undefined),
      store,
      keepDeliveries: true,
      respond: 'after-handlers',
      logger: captureLogger(),
    }).on('message.delivered', () => {
      throw new Error('down');
    });
    const d = createTestDelivery('message.delivered', { secret: SECRET, attempt: 2 });
    expect(
      (await app.handle({ rawBody: d.body, headers: d.headers, params: { tenant: 'a/b' } })).status,
    ).toBe(500);
    const seen: string[] = [];
    const handlers = createReceiver({ secret: SECRET, logger: captureLogger() }).on(
      'message.delivered',
      (event, ctx) => {
        seen.push(`${event.id} ${ctx.tenant} ${ctx.attempt} ${ctx.claim?.key}`);
      },
    );
    // Without the tenant the key is not there.
    expect(await replayEvents({ store, receiver: handlers, eventIds: [d.event.id] })).toEqual([
      { eventId: d.event.id, eventType: null, outcome: 'not-kept', reason: 'not-found' },
    ]);
    const [result] = await replayEvents({ store, receiver: handlers, eventIds: [d.event.id], tenant: 'a/b' });
    expect(result).toMatchObject({ outcome: 'replayed', eventType: 'message.delivered', attempt: 2 });
    expect(seen).toEqual([`${d.event.id} a/b 2 a%2Fb/${d.event.id}`]);
    // The live retry that comes later is a duplicate.
    const retry = await app.handle({ rawBody: d.body, headers: d.headers, params: { tenant: 'a/b' } });
    expect(retry.json).toMatchObject({ duplicate: true });
  });

  it('a live retry arriving during the replay is not run; after it, it is a duplicate', async () => {
    const store = new MemoryStore();
    const app = failingApp(store, { respond: 'after-handlers' });
    const d = createTestDelivery('message.delivered', { secret: SECRET });
    expect((await app.handle({ rawBody: d.body, headers: d.headers })).status).toBe(500);
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const runs: string[] = [];
    const handlers = createReceiver({ secret: SECRET, logger: captureLogger() }).on(
      'message.delivered',
      async (e) => {
        runs.push(e.id);
        await gate;
      },
    );
    const replaying = replayEvents({ store, receiver: handlers, eventIds: [d.event.id] });
    await vi.waitFor(() => expect(runs).toHaveLength(1));
    const live = await app.handle({ rawBody: d.body, headers: d.headers });
    expect(live).toMatchObject({ status: 409, json: { error: { code: 'in_flight' } } });
    // A second replay meanwhile runs nothing either.
    expect((await replayEvents({ store, receiver: handlers, eventIds: [d.event.id] }))[0]!.outcome).toBe(
      'in-flight',
    );
    open();
    expect((await replaying)[0]!.outcome).toBe('replayed');
    expect((await app.handle({ rawBody: d.body, headers: d.headers })).json).toMatchObject({
      duplicate: true,
    });
    expect(runs).toEqual([d.event.id]);
  });

  it('a handler that fails again is named, and its claim is given back for the next replay', async () => {
    const store = new MemoryStore();
    const app = failingApp(store, { respond: 'after-handlers' });
    const d = createTestDelivery('message.delivered', { secret: SECRET });
    await app.handle({ rawBody: d.body, headers: d.headers });
    const [failed] = await replayEvents({
      store,
      receiver: app,
      eventIds: [d.event.id],
      logger: captureLogger(),
    });
    expect(failed).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/database is down/) });
    expect(await store.inspect(d.event.id)).toBeUndefined();
    const ok = createReceiver({ secret: SECRET, logger: captureLogger() }).on('message.delivered', () => {});
    expect((await replayEvents({ store, receiver: ok, eventIds: [d.event.id] }))[0]!.outcome).toBe(
      'replayed',
    );
    expect((await store.inspect(d.event.id))?.state).toBe('completed');
  });

  it('names a body too large to keep, and refuses a store that keeps nothing', async () => {
    const store = new MemoryStore();
    const app = failingApp(store, { respond: 'after-handlers', keepDeliveries: { maxBytes: 100 } });
    const d = createTestDelivery('message.delivered', { secret: SECRET });
    await app.handle({ rawBody: d.body, headers: d.headers });
    expect(await replayEvents({ store, receiver: app, eventIds: [d.event.id] })).toEqual([
      expect.objectContaining({ outcome: 'not-kept', reason: 'too-large', eventType: 'message.delivered' }),
    ]);
    const plain = {
      localKeys: true,
      claim: store.claim.bind(store),
      complete: store.complete.bind(store),
      release: store.release.bind(store),
    };
    await expect(replayEvents({ store: plain, receiver: app, eventIds: ['evt_1'] })).rejects.toMatchObject({
      code: 'ERR_SMS_OPS_NO_KEPT',
    });
    await expect(replayEvents({ store, receiver: app, eventIds: 'evt_1' as never })).rejects.toMatchObject({
      code: 'ERR_SMS_OPS_OPTIONS',
    });
  });
});
