import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AttemptReport, createEmulator, type Emulator } from '@sms-webhooks/emulator';
import { createDatabase, type TestDatabase } from '@sms-webhooks/test-helpers/postgres-db';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { startApp } from './app-process.js';
import { cli } from './spawn-cli.js';

// Each test starts a crashed app and then runs several CLI processes one after another: with the suite's
// files running side by side that is past vitest's 20 s default on two cores.
vi.setConfig({ testTimeout: 90_000 });

// Recover what the audit finds, for real: the app is an Express process of its own with keepDeliveries
// and the default fast answer, SIGKILLed inside its handler after the 200. The audit (a process) calls
// the event unfinished and kept; `replay` (a process, with the app's receiver module) runs it once; the
// audit then calls it fine. A dead process's claim ends after its lease: the app's is 1 s here.

const SECRET = `whsec_${randomBytes(24).toString('base64url')}`;
const LEASE_MS = 1000;
const replayModule = 'packages/cli/test/fixtures/replay-receiver.ts';
let redis: RedisServer;
let db: TestDatabase;
let emulator: Emulator | undefined;
beforeAll(async () => {
  [redis, db] = await Promise.all([startRedisServer(), createDatabase('cli_replay')]);
});
afterAll(async () => {
  await redis?.stop();
  await db?.drop();
});
afterEach(() => emulator?.close());

/** An app killed in its handler after answering 200: the webhook, the event, and the store's flags. */
async function crashed(store: 'RedisStore' | 'PostgresStore', leaseMs = LEASE_MS) {
  const attempts: AttemptReport[] = [];
  emulator = createEmulator({
    allowInsecureLoopback: true,
    webhookSecret: SECRET,
    onAttempt: (a) => void attempts.push(a),
  });
  const env = { SMS_API_KEY: 'sk_test_replay_crash', SMS_API_BASE_URL: await emulator.listen() };
  const name = `replay_${randomBytes(4).toString('hex')}`;
  const storeFlags =
    store === 'RedisStore'
      ? ['--redis-url', redis.url, '--store-prefix', `${name}:`]
      : ['--database-url', db.url, '--table', name];
  const app = await startApp('crashing-app.ts', {
    ...(store === 'RedisStore'
      ? { REDIS_URL: redis.url, STORE_PREFIX: `${name}:` }
      : { DATABASE_URL: db.url, STORE_PREFIX: name }),
    SECRET,
    KEEP: '1',
    LEASE_MS: String(leaseMs),
  });
  try {
    const url = await app.printed('url');
    const created = await cli(
      ['webhooks', 'create', '--url', url, '--events', 'message.sent', '--json'],
      env,
    );
    expect(created.code).toBe(0);
    const [event] = emulator.emit('message.sent');
    expect(await app.printed('handling')).toBe(event!.id);
    await vi.waitFor(() => expect(attempts.map((a) => a.statusCode)).toEqual([200]));
  } finally {
    app.kill();
    await app.exited;
  }
  const handled = join(mkdtempSync(join(tmpdir(), 'sms-replay-')), 'handled');
  writeFileSync(handled, '');
  const webhookId = emulator.webhooks()[0]!.id;
  const eventId = emulator.deliveries(webhookId)[0]!.event_id;
  return {
    env,
    webhookId,
    eventId,
    storeFlags,
    handled,
    runs: () => readFileSync(handled, 'utf8').split('\n').filter(Boolean),
  };
}

describe.each(['RedisStore', 'PostgresStore'] as const)('replay after a real crash (%s)', (store) => {
  it('the audit says unfinished and kept; replay runs it once; the audit then says fine', async () => {
    const w = await crashed(store);
    const audit = ['audit', w.webhookId, ...w.storeFlags, '--handles', 'message.sent'];
    const before = await cli([...audit, '--json'], w.env);
    expect(before.code).toBe(1);
    expect(JSON.parse(before.stdout).events).toEqual([
      expect.objectContaining({ eventId: w.eventId, category: 'unfinished', replay: 'kept' }),
    ]);
    expect((await cli(audit, w.env)).stdout).toContain(`kept: sms-webhooks replay ${w.eventId}`);

    await sleep(LEASE_MS + 200); // the dead process's claim ends
    const replay = ['replay', w.eventId, '--receiver', replayModule, ...w.storeFlags];
    const replayed = await cli(replay, { ...w.env, HANDLED_FILE: w.handled });
    expect(replayed.stdout).toBe(
      `${w.eventId}  message.sent  replayed: its handlers ran and it is recorded done\n`,
    );
    expect(replayed.code).toBe(0);
    expect(w.runs()).toEqual([`${w.eventId} -`]);
    // No body in any output.
    expect(replayed.stdout + replayed.stderr).not.toContain('"object":"event"');

    const after = await cli(audit, w.env);
    expect(after.code).toBe(0);
    expect(after.stdout).toContain('missed 0 · unfinished 0 · retrying 0 · fine 1');
    // Replayed once is enough: again, it is not run.
    const again = await cli([...replay, '--json'], { ...w.env, HANDLED_FILE: w.handled });
    expect(JSON.parse(again.stdout).results).toEqual([
      expect.objectContaining({ eventId: w.eventId, outcome: 'already-finished' }),
    ]);
    expect(w.runs()).toHaveLength(1);
  });
});

it('two replays at once run the event once', async () => {
  const w = await crashed('RedisStore');
  await sleep(LEASE_MS + 200);
  const replay = ['replay', w.eventId, '--receiver', replayModule, ...w.storeFlags, '--json'];
  const env = { ...w.env, HANDLED_FILE: w.handled, REPLAY_DELAY_MS: '500' };
  const both = await Promise.all([cli(replay, env), cli(replay, env)]);
  const outcomes = both.map((r) => JSON.parse(r.stdout).results[0].outcome).sort();
  expect(outcomes[0]).toMatch(/^(already-finished|in-flight)$/);
  expect(outcomes[1]).toBe('replayed');
  expect(w.runs()).toEqual([`${w.eventId} -`]);
});

it('replay before the dead claim ends says in flight and runs nothing', async () => {
  const w = await crashed('RedisStore', 60_000);
  const result = await cli(['replay', w.eventId, '--receiver', replayModule, ...w.storeFlags], {
    ...w.env,
    HANDLED_FILE: w.handled,
  });
  expect(result.code).toBe(1);
  expect(result.stdout).toMatch(/in flight: a claim holds it/);
  expect(result.stderr).toMatch(/error: 1 of 1 event\(s\) were not replayed/);
  expect(w.runs()).toEqual([]);
});
