import { createReceiver, createTestDelivery, type DedupeStore, MemoryStore } from '@sms-webhooks/core';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { type Connected, connect } from './clients.js';
import { captureLogger, counter, runPrefix, secret, send } from './harness.js';

let server: RedisServer;
let ioredis: Connected;
let nodeRedis: Connected;

beforeAll(async () => {
  server = await startRedisServer();
  [ioredis, nodeRedis] = await Promise.all([
    connect('ioredis', server.url),
    connect('node-redis v5', server.url),
  ]);
});

afterAll(async () => {
  await Promise.all([ioredis?.close(), nodeRedis?.close()]);
  await server?.stop();
});

// Issue 14, point 3. JSON may escape a lone surrogate, so a signed body can carry an id that UTF-8 cannot
// hold; RedisStore wrote both of these as `evt_\uFFFD` and answered the second one `duplicate`.
const LONE_SURROGATES = ['evt_\ud800', 'evt_\udfff', 'evt_\ud83d', 'evt_x\ude00y'];
// Well-formed ids close to those: U+FFFD itself, a surrogate pair (one astral character), and its neighbour.
const WELL_FORMED = ['evt_\ufffd', 'evt_\ud83d\ude00', 'evt_\ud83d\ude01', 'evt_\u00e9', 'evt_e\u0301'];

const stores: Array<[string, () => DedupeStore]> = [
  ['MemoryStore', () => new MemoryStore()],
  ['RedisStore (ioredis)', () => ioredis.store({ prefix: runPrefix('ids-io') })],
  ['RedisStore (node-redis v5)', () => nodeRedis.store({ prefix: runPrefix('ids-nr') })],
];

describe.each(stores)('event ids through a receiver with %s', (_name, makeStore) => {
  function receiverWith(store: DedupeStore) {
    const receiver = createReceiver({ secret, store, respond: 'after-handlers', logger: captureLogger() });
    const runs = counter();
    receiver.on('message.delivered', (event) => runs.add(event.id));
    return { receiver, runs };
  }

  it('refuses ids with a lone surrogate with 400 payload_invalid, before the store sees them', async () => {
    const calls: string[] = [];
    const inner = makeStore();
    const store: DedupeStore = {
      localKeys: inner.localKeys,
      claim: (...a) => {
        calls.push(a[0]);
        return inner.claim(...a);
      },
      complete: (...a) => inner.complete(...a),
      release: (...a) => inner.release(...a),
    };
    const { receiver, runs } = receiverWith(store);
    for (const id of LONE_SURROGATES) {
      const d = createTestDelivery('message.delivered', { secret, id });
      expect(d.body).toContain('\\ud'); // the body escapes it, as any JSON encoder may
      const answer = await send(receiver, d);
      expect(answer.status).toBe(400);
      expect(answer.body.error?.code).toBe('payload_invalid');
      expect(runs.get(id)).toBe(0);
    }
    expect(calls).toEqual([]);
  });

  it('keeps well-formed ids apart, however close: each handled once, then duplicate', async () => {
    const { receiver, runs } = receiverWith(makeStore());
    const deliveries = WELL_FORMED.map((id) => createTestDelivery('message.delivered', { secret, id }));
    for (const d of deliveries)
      expect(await send(receiver, d)).toEqual({ status: 200, body: { received: true } });
    for (const d of deliveries) {
      expect(await send(receiver, d)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    }
    for (const id of WELL_FORMED) expect(runs.get(id)).toBe(1);
  });
});
