/**
 * Events out of order across instances: two app instances on one Redis, each behind its own HTTP server,
 * receive 1,000 status events for 100 messages in a shuffled order, as the service's independent retry
 * schedules deliver them. A 409 (another event of the message is running) is sent again later, as the
 * service would. Every message must end at its newest status, and no handler may ever see an older
 * version than one already completed for its message.
 */
import { createServer } from 'node:http';
import { createReceiver, createTestDelivery, type EventType, signPayload } from '@sms-webhooks/core';
import { createNodeHandler, writeNodeResponse } from '@sms-webhooks/core/adapter';
import { type Listening, listen } from '@sms-webhooks/test-helpers';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { type Connected, connect } from './clients.js';
import { captureLogger, runPrefix, secret } from './harness.js';

const MESSAGES = 100;
const STATUSES = 10;
const TYPES: EventType[] = ['message.sent', 'message.delivered', 'message.failed'];

let server: RedisServer;
const connections: Connected[] = [];
const apps: Listening[] = [];

beforeAll(async () => {
  server = await startRedisServer();
});

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await Promise.all(connections.map((c) => c.close()));
  await server?.stop();
});

/** `shuffle` in place, from a seeded generator so a failure can be replayed. */
function shuffle<T>(list: T[], seed: number): T[] {
  let s = seed;
  const next = () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}

it('two instances on one Redis, 1,000 shuffled status events for 100 messages: each ends at its newest', async () => {
  const prefix = runPrefix('order-race');
  // What the app's database would hold: each message's status and the newest version its handlers wrote.
  const status = new Map<string, { version: number; type: string }>();
  const completed = new Map<string, number>();
  const violations: string[] = [];
  let running = 0;
  const runningPerMessage = new Map<string, number>();

  for (const name of ['a', 'b']) {
    const c = await connect('ioredis', server.url);
    connections.push(c);
    const receiver = createReceiver({
      secret,
      store: c.store({ prefix }),
      order: true,
      respond: 'after-handlers',
      logger: captureLogger(),
    });
    receiver.on(TYPES, async (event) => {
      const data = event.data as { id: string; seq: number };
      const seen = completed.get(data.id) ?? 0;
      if (data.seq < seen) violations.push(`${name}: ${data.id} v${data.seq} ran after v${seen} completed`);
      const concurrent = (runningPerMessage.get(data.id) ?? 0) + 1;
      runningPerMessage.set(data.id, concurrent);
      if (concurrent > 1) violations.push(`${name}: two handlers of ${data.id} at once`);
      running++;
      // A database write: other deliveries interleave here.
      await new Promise((r) => setTimeout(r, 1 + (data.seq % 3)));
      status.set(data.id, { version: data.seq, type: event.type });
      completed.set(data.id, Math.max(seen, data.seq));
      runningPerMessage.set(data.id, concurrent - 1);
      running--;
    });
    const handle = createNodeHandler(receiver, { name: `instance ${name}`, howToFix: '' });
    apps.push(
      await listen(
        createServer((req, res) => {
          void handle(req, { write: (r) => writeNodeResponse(res, r), takeOver: () => res });
        }),
        '/webhooks/sms',
      ),
    );
  }

  // Each message's statuses, versioned 1..10 one second apart; the newest is the one that must win.
  const base = Date.parse('2026-11-26T09:00:00Z');
  const events: { id: string; seq: number; body: string; headers: Record<string, string> }[] = [];
  for (let m = 0; m < MESSAGES; m++) {
    for (let seq = 1; seq <= STATUSES; seq++) {
      const type = TYPES[(m + seq) % TYPES.length]!;
      const d = createTestDelivery(type, {
        secret,
        data: { id: `msg_${m}`, seq, updated_at: new Date(base + seq * 1000).toISOString() } as never,
      });
      events.push({ id: `msg_${m}`, seq, body: d.body, headers: d.headers });
    }
  }
  const queue = shuffle([...events], 20261126);
  const answers = new Map<string, number>();
  let sends = 0;
  const worker = async () => {
    for (let e = queue.shift(); e !== undefined; e = queue.shift()) {
      const app = apps[sends++ % 2]!;
      // Signed again on each send, as each of the service's attempts is.
      const headers = { ...e.headers, 'x-service-signature': signPayload(e.body, secret) };
      const res = await fetch(app.url, { method: 'POST', body: e.body, headers });
      const json = (await res.json()) as { stale?: boolean; error?: { code: string } };
      const kind = json.stale ? 'stale' : res.status === 200 ? '200' : `${res.status} ${json.error?.code}`;
      answers.set(kind, (answers.get(kind) ?? 0) + 1);
      if (res.status === 409)
        queue.push(e); // the service retries it later
      else expect(res.status, kind).toBe(200);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));

  expect(violations).toEqual([]);
  expect(running).toBe(0);
  for (let m = 0; m < MESSAGES; m++) {
    const newest = events.find((e) => e.id === `msg_${m}` && e.seq === STATUSES)!;
    expect(status.get(`msg_${m}`), `msg_${m}`).toEqual({
      version: STATUSES,
      type: JSON.parse(newest.body).type,
    });
  }
  // Out of order, most older statuses arrive after a newer one: they were stale, not run.
  expect(answers.get('stale') ?? 0).toBeGreaterThan(100);
  expect((answers.get('200') ?? 0) + (answers.get('stale') ?? 0)).toBe(MESSAGES * STATUSES);
}, 120_000);
