import {
  createReceiver,
  createTestDelivery,
  type DedupeStore,
  MemoryStore,
  type ReceiverOptions,
} from '@sms-webhooks/core';
import type { AdapterReceiver } from '@sms-webhooks/core/adapter';
import type { DeliveryObserver, Instrumentation } from '@sms-webhooks/core/instrumentation';
import { VirtualClock } from '@sms-webhooks/core/testing';
import { describe, expect, it } from 'vitest';
import { captureLogger, deferred, secret } from './helpers.js';

/** Turns of the event loop until `done()`; fails instead of hanging. No time is measured. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (done()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`never happened: ${what}`);
}

/** A MemoryStore that records the ids it was asked to claim and renew. */
function recordingStore(now?: () => number) {
  const claims: string[] = [];
  const renewals: string[] = [];
  const memory = new MemoryStore(now === undefined ? undefined : { now });
  const store: DedupeStore = Object.assign(memory, {
    claim: (key: string, token: string, leaseMs: number) => {
      claims.push(key);
      return MemoryStore.prototype.claim.call(memory, key, token, leaseMs);
    },
    renew: (key: string, token: string, leaseMs: number) => {
      renewals.push(key);
      return MemoryStore.prototype.renew.call(memory, key, token, leaseMs);
    },
  });
  return { store, claims, renewals };
}

/** A receiver whose `message.sent` handler waits on a gate, counting how many run at once. */
function gatedReceiver(options: Partial<ReceiverOptions>) {
  const gate = deferred();
  const seen = { running: 0, most: 0, handled: [] as string[], refused: [] as string[] };
  const receiver = createReceiver({ secret, logger: captureLogger(), ...options }) as AdapterReceiver;
  receiver.on('message.sent', async (event) => {
    seen.running++;
    seen.most = Math.max(seen.most, seen.running);
    await gate.promise;
    seen.running--;
    seen.handled.push(event.id);
  });
  receiver.onRefused((r) => void seen.refused.push(`${r.status} ${r.code}`));
  const send = (d = createTestDelivery('message.sent', { secret })) =>
    receiver.handle({ rawBody: d.body, headers: d.headers });
  return { receiver, gate, seen, send };
}

describe('maxConcurrency and maxQueue', () => {
  it("'immediately': acks up to the slots and the wait list, runs at most maxConcurrency at once, and refuses the rest with 503 overloaded before any claim", async () => {
    const { store, claims } = recordingStore();
    const { receiver, gate, seen, send } = gatedReceiver({ store, maxConcurrency: 2, maxQueue: 3 });
    const deliveries = Array.from({ length: 7 }, () => createTestDelivery('message.sent', { secret }));
    const answers = [];
    for (const d of deliveries) answers.push(await send(d));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 503, 503]);
    const refused = answers[5]!;
    expect(refused.json).toMatchObject({ error: { code: 'overloaded' } });
    expect(refused.headers['retry-after']).toBe('10');
    expect(seen.refused).toEqual(['503 overloaded', '503 overloaded']);
    // The refused two never reached the store: their retry starts from nothing.
    expect(claims).toEqual(deliveries.slice(0, 5).map((d) => d.event.id));
    await until(() => seen.running === 2, 'two handlers running');
    // The entries' check before the body: full now.
    expect(receiver.overloaded()?.status).toBe(503);
    expect(seen.refused).toHaveLength(3);
    gate.resolve();
    await receiver.drain();
    expect(seen.most).toBe(2);
    expect(seen.handled).toEqual(deliveries.slice(0, 5).map((d) => d.event.id)); // in arrival order
    expect(receiver.overloaded()).toBeUndefined();
    // The service's retry of a refused event runs it, once.
    expect((await send(deliveries[5])).status).toBe(200);
    await receiver.drain();
    expect((await send(deliveries[5])).json).toEqual({ received: true, duplicate: true });
    expect(seen.handled).toHaveLength(6);
  });

  it("'after-handlers': the request waits for a slot; past the wait list it is refused", async () => {
    const { receiver, gate, seen, send } = gatedReceiver({
      respond: 'after-handlers',
      maxConcurrency: 1,
      maxQueue: 1,
    });
    const first = send();
    const second = send();
    const third = await send();
    expect(third.status).toBe(503);
    expect(third.json).toMatchObject({ error: { code: 'overloaded' } });
    await until(() => seen.running === 1, 'one handler running');
    gate.resolve();
    expect([(await first).status, (await second).status]).toEqual([200, 200]);
    expect(seen.most).toBe(1);
    expect(receiver.overloaded()).toBeUndefined();
  });

  it('gives the place back when the claim is refused (duplicate), so the bound does not shrink', async () => {
    const { gate, seen, send } = gatedReceiver({
      respond: 'after-handlers',
      maxConcurrency: 1,
      maxQueue: 0,
    });
    gate.resolve();
    const d = createTestDelivery('message.sent', { secret });
    expect((await send(d)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await send(d)).json).toEqual({ received: true, duplicate: true });
    expect((await send()).status).toBe(200);
    expect(seen.handled).toHaveLength(2);
  });

  it('ignored events, refusals and a store failure take no place', async () => {
    const { receiver, gate, send } = gatedReceiver({
      maxConcurrency: 1,
      maxQueue: 0,
      store: {
        localKeys: false,
        claim: () => Promise.reject(new Error('down')),
        complete: () => Promise.reject(new Error('down')),
        release: () => Promise.reject(new Error('down')),
      },
    });
    const ignored = createTestDelivery('message.failed', { secret });
    expect((await receiver.handle({ rawBody: ignored.body, headers: ignored.headers })).json).toMatchObject({
      ignored: true,
    });
    expect((await receiver.handle({ rawBody: '{}', headers: {} })).status).toBe(400);
    expect((await send()).json).toMatchObject({ error: { code: 'store_unavailable' } });
    expect(receiver.overloaded()).toBeUndefined();
    gate.resolve();
  });

  it('keeps the claim of a waiting event renewed, so a wait longer than the lease cannot run it twice', async () => {
    const clock = new VirtualClock(Date.now());
    const { store, renewals } = recordingStore(() => clock.now());
    const { receiver, gate, seen, send } = gatedReceiver({
      store,
      clock,
      leaseMs: 3000,
      handlerTimeoutMs: false,
      maxConcurrency: 1,
      maxQueue: 2,
    });
    const running = createTestDelivery('message.sent', { secret });
    const waiting = createTestDelivery('message.sent', { secret });
    expect((await send(running)).status).toBe(200);
    expect((await send(waiting)).status).toBe(200);
    await until(() => seen.running === 1, 'the first handler running');
    await clock.advance(10_000);
    // Still claimed: the service's redelivery now is in flight, not run a second time.
    const again = await receiver.handle({ rawBody: waiting.body, headers: waiting.headers });
    expect([again.status, (again.json as { error?: { code: string } }).error?.code]).toEqual([
      409,
      'in_flight',
    ]);
    expect(renewals.filter((id) => id === waiting.event.id).length).toBeGreaterThanOrEqual(3);
    gate.resolve();
    await receiver.drain();
    expect(seen.handled).toEqual([running.event.id, waiting.event.id]);
  });

  it("renews a waiting tenant's claim under its tenant key, the key it was claimed under", async () => {
    const clock = new VirtualClock(Date.now());
    const { store, claims, renewals } = recordingStore(() => clock.now());
    const gate = deferred();
    const receiver = createReceiver({
      secret: ({ tenant }) => (tenant === 'acme' ? secret : undefined),
      logger: captureLogger(),
      store,
      clock,
      leaseMs: 3000,
      handlerTimeoutMs: false,
      maxConcurrency: 1,
      maxQueue: 2,
    });
    receiver.on('message.sent', () => gate.promise);
    const send = (d: ReturnType<typeof createTestDelivery>) =>
      receiver.handle({ rawBody: d.body, headers: d.headers, params: { tenant: 'acme' } });
    const running = createTestDelivery('message.sent', { secret });
    const waiting = createTestDelivery('message.sent', { secret });
    expect((await send(running)).status).toBe(200);
    expect((await send(waiting)).status).toBe(200);
    await until(() => claims.length === 2, 'both claimed');
    await clock.advance(10_000);
    expect((await send(waiting)).status).toBe(409);
    expect(renewals.filter((key) => key === `acme/${waiting.event.id}`).length).toBeGreaterThanOrEqual(3);
    expect(renewals.filter((key) => key === waiting.event.id)).toEqual([]);
    gate.resolve();
    await receiver.drain();
  });

  it('drain waits for the waiting runs too', async () => {
    const { receiver, gate, seen, send } = gatedReceiver({ maxConcurrency: 1, maxQueue: 5 });
    for (let i = 0; i < 4; i++) expect((await send()).status).toBe(200);
    const drained = receiver.drain();
    gate.resolve();
    await drained;
    expect(seen.handled).toHaveLength(4);
  });

  it('counts the entries’ refusals with the instrumentation, and the pipeline’s through the observer', async () => {
    const entry: string[] = [];
    const answered: string[] = [];
    const observer = {
      verified() {},
      store: (_op: unknown, call: () => Promise<unknown>) => call(),
      runHandler: (_h: unknown, call: () => unknown) => call(),
      answered: (r: { status: number; json: object }) =>
        void answered.push(
          `${r.status} ${JSON.stringify(r.json).includes('overloaded') ? 'overloaded' : ''}`,
        ),
      threw() {},
      finished() {},
    } as unknown as DeliveryObserver;
    const instrumentation: Instrumentation = {
      startDelivery: () => observer,
      refused: (code, status) => void entry.push(`${status} ${code}`),
    };
    const { receiver, gate, send } = gatedReceiver({ instrumentation, maxConcurrency: 1, maxQueue: 0 });
    await send();
    await send();
    expect(answered).toEqual(['200 ', '503 overloaded']);
    receiver.overloaded();
    expect(entry).toEqual(['503 overloaded']);
    gate.resolve();
  });

  it('costs nothing without the option: overloaded() is always undefined', async () => {
    const { receiver, gate, send } = gatedReceiver({});
    for (let i = 0; i < 50; i++) expect((await send()).status).toBe(200);
    expect(receiver.overloaded()).toBeUndefined();
    gate.resolve();
    await receiver.drain();
  });

  it.each([
    [{ maxQueue: 10 }, /`maxQueue` bounds .* set `maxConcurrency` too/],
    [{ maxConcurrency: 0 }, /`maxConcurrency` must be a positive integer of handler runs, got 0/],
    [{ maxConcurrency: 2.5 }, /`maxConcurrency` must be a positive integer/],
    [{ maxConcurrency: '10' }, /got the string "10"/],
    [{ maxConcurrency: 10, maxQueue: -1 }, /`maxQueue` must be a positive integer/],
    [{ maxConcurrency: 10, maxQueue: Number.POSITIVE_INFINITY }, /`maxQueue` must be a positive integer/],
    [{ maxConcurrency: 10, dispatch: async () => {} }, /with `dispatch` they run in a queue worker/],
  ])('fails at start-up with ERR_SMS_OPTIONS for %o', (options, message) => {
    let thrown: unknown;
    try {
      createReceiver({ secret, ...(options as Partial<ReceiverOptions>) });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as { code?: string }).code).toBe('ERR_SMS_OPTIONS');
    expect(String((thrown as Error).message)).toMatch(message);
  });

  it('accepts maxQueue 0 (no wait list) and defaults it to 1000', async () => {
    const { send, gate } = gatedReceiver({ maxConcurrency: 1 });
    const answers = [];
    for (let i = 0; i < 1002; i++) answers.push((await send()).status);
    expect(answers.filter((s) => s === 200)).toHaveLength(1001);
    expect(answers.at(-1)).toBe(503);
    gate.resolve();
  });
});
