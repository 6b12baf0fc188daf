import { createReceiver, createTestDelivery, type Receiver } from '@sms-webhooks/core';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { type ClientKind, type Connected, connect } from './clients.js';
import { captureLogger, counter, secret, send, sleep } from './harness.js';

// Four app instances, each with its own connection; mixing the clients also shows they share one layout.
const KINDS: ClientKind[] = ['ioredis', 'node-redis v5', 'node-redis v4', 'ioredis'];

let server: RedisServer;
let connections: Connected[] = [];

beforeAll(async () => {
  server = await startRedisServer();
});

afterEach(async () => {
  await Promise.all(connections.map((c) => c.close()));
  connections = [];
});

afterAll(async () => {
  await server?.stop();
});

async function instances(
  prefix: string,
  options: Partial<Parameters<typeof createReceiver>[0]> = {},
): Promise<Receiver[]> {
  connections = await Promise.all(KINDS.map((kind) => connect(kind, server.url)));
  return connections.map((c) =>
    createReceiver({ secret, store: c.store({ prefix }), logger: captureLogger(), ...options }),
  );
}

describe('many instances, one Redis', () => {
  it('200 concurrent deliveries of 50 events across 4 instances run each handler exactly once', async () => {
    const receivers = await instances(`multi-${Date.now()}:`);
    const runs = counter();
    for (const r of receivers) {
      r.on('message.delivered', async (event) => {
        runs.add(event.id);
        await sleep(5); // long enough that some redeliveries arrive while it runs
      });
    }
    const events = Array.from({ length: 50 }, () => createTestDelivery('message.delivered', { secret }));
    const answers = await Promise.all(
      events.flatMap((d, e) => receivers.map((_, k) => send(receivers[(e + k) % 4]!, d))),
    );
    await Promise.all(receivers.map((r) => r.drain()));

    expect(answers).toHaveLength(200);
    for (const d of events) expect(runs.get(d.event.id)).toBe(1);
    expect(answers.filter((a) => a.status === 200 && !a.body.duplicate)).toHaveLength(50);
    // The other 150 are told "done already" or "being processed elsewhere": never processed again.
    for (const a of answers.filter((a) => !(a.status === 200 && !a.body.duplicate))) {
      expect([a.status, a.body.duplicate ?? a.body.error?.code]).toSatisfy(
        ([status, what]) => (status === 200 && what === true) || (status === 409 && what === 'in_flight'),
      );
    }
    // A late redelivery, after everything finished, is a duplicate on every instance.
    for (const r of receivers)
      expect((await send(r, events[0]!)).body).toEqual({ received: true, duplicate: true });
  });

  it('after-handlers: a handler that failed once runs again on redelivery elsewhere, then dedupes', async () => {
    const receivers = await instances(`after-${Date.now()}:`, { respond: 'after-handlers' });
    const calls = counter();
    const successes = counter();
    for (const r of receivers) {
      r.on('message.failed', async (event) => {
        calls.add(event.id);
        if (calls.get(event.id) === 1) throw new Error('downstream hiccup');
        successes.add(event.id);
      });
    }
    const events = Array.from({ length: 10 }, () => createTestDelivery('message.failed', { secret }));

    const first = await Promise.all(events.map((d, i) => send(receivers[i % 4]!, d)));
    expect(first.map((a) => [a.status, a.body.error?.code])).toEqual(
      events.map(() => [500, 'handler_failed']),
    );

    const second = await Promise.all(events.map((d, i) => send(receivers[(i + 1) % 4]!, d)));
    expect(second.map((a) => a.status)).toEqual(events.map(() => 200));
    expect(second.every((a) => a.body.received === true && a.body.duplicate === undefined)).toBe(true);

    const third = await Promise.all(events.map((d, i) => send(receivers[(i + 2) % 4]!, d)));
    expect(third.map((a) => a.body)).toEqual(events.map(() => ({ received: true, duplicate: true })));

    for (const d of events) {
      expect(calls.get(d.event.id)).toBe(2);
      expect(successes.get(d.event.id)).toBe(1);
    }
  });
});
