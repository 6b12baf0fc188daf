import { randomBytes } from 'node:crypto';
import { createReceiver } from '@sms-webhooks/core';
import { VirtualClock } from '@sms-webhooks/core/testing';
import { createEmulator } from '@sms-webhooks/emulator';
import { RedisStore } from '@sms-webhooks/redis';
import { captureLogger } from '@sms-webhooks/test-helpers';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { Redis } from 'ioredis';
import { receiverServer } from './app-process.js';
import { runCli } from './helpers.js';

// A night of 500s: the database is down, the emulator plays all six attempts on a VirtualClock, and the
// event ends missed. With keepDeliveries the receiver kept each verified attempt's body, so once the
// database is back `audit --replay` runs it through the app's handlers (the fixture module) and a second
// audit calls it fine.

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(() => redis?.stop());

const replayed = () => (globalThis as { smsReplayed?: string[] }).smsReplayed ?? [];

it('a night of 500s ends missed; audit --replay recovers it, once', async () => {
  const clock = new VirtualClock();
  const emulator = createEmulator({ allowInsecureLoopback: true, clock });
  const client = new Redis(redis.url);
  const app = await receiverServer(
    createReceiver({ secret: 'whsec_placeholder_0123456789abcdef', logger: captureLogger() }),
  );
  try {
    const env = { SMS_API_KEY: 'sk_test_night', SMS_API_BASE_URL: await emulator.listen() };
    const url = app.url;
    const webhook = JSON.parse(
      (await runCli(['webhooks', 'create', '--url', url, '--events', 'message.failed', '--json'], env))
        .stdout,
    ) as { id: string; secret: string };
    const prefix = `night-${randomBytes(4).toString('hex')}:`;
    const store = new RedisStore({ client, clientType: 'ioredis', prefix });
    app.use(
      createReceiver({
        secret: webhook.secret,
        store,
        clock,
        respond: 'after-handlers',
        keepDeliveries: true,
        logger: captureLogger(),
      }).on('message.failed', () => {
        throw new Error('database is down');
      }),
    );
    const [event] = emulator.emit('message.failed');
    await clock.runAll();
    const storeFlags = ['--redis-url', redis.url, '--store-prefix', prefix];
    const flags = [...storeFlags, '--handles', 'message.failed'];

    const night = await runCli(['audit', webhook.id, ...flags, '--json'], env);
    expect(night.code).toBe(1);
    expect(JSON.parse(night.stdout).events).toEqual([
      expect.objectContaining({ eventId: event!.id, category: 'missed', attempts: 6, replay: 'kept' }),
    ]);

    // The database is back; the app's module (the fixture) has the handlers.
    const before = replayed().length;
    const fixture = 'packages/cli/test/fixtures/replay-receiver.ts';
    // The module gives the handled types and the handlers alike.
    const recovered = await runCli(
      ['audit', webhook.id, ...storeFlags, '--replay', '--receiver', fixture],
      env,
    );
    expect(recovered.stdout).toContain(
      `${event!.id}  message.failed  replayed: its handlers ran and it is recorded done`,
    );
    expect(recovered.code).toBe(0);
    expect(replayed().slice(before)).toEqual([`${event!.id} -`]);
    const morning = await runCli(['audit', webhook.id, ...flags], env);
    expect(morning.code).toBe(0);
    expect(morning.stdout).toContain('missed 0 · unfinished 0 · retrying 0 · fine 1');
    // A second --replay finds nothing to do.
    const again = await runCli(['audit', webhook.id, ...storeFlags, '--replay', '--receiver', fixture], env);
    expect(again.stdout).toContain('Nothing to replay');
    expect(replayed().slice(before)).toHaveLength(1);
    // --replay without the handlers is a usage mistake.
    expect(await runCli(['audit', webhook.id, ...flags, '--replay'], env)).toMatchObject({ code: 2 });
  } finally {
    await emulator.close();
    await app.close();
    await client.quit();
  }
});
