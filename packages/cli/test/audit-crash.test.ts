import { randomBytes } from 'node:crypto';
import { type AttemptReport, createEmulator, type Emulator } from '@sms-webhooks/emulator';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { startApp } from './app-process.js';
import { runCli } from './helpers.js';
import { cli } from './spawn-cli.js';

// A crash after a fast 200, for real: the app is its own process, answers 200 (respond: 'immediately'),
// and is SIGKILLed inside its handler. The audit, a process of its own too, must call that event
// acknowledged-not-finished from the emulator's records and the app's RedisStore alone.

const SECRET = `whsec_${randomBytes(24).toString('base64url')}`;
let redis: RedisServer;
let emulator: Emulator | undefined;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(() => redis?.stop());
afterEach(() => emulator?.close());

describe('sms-webhooks audit after a real crash', () => {
  it('an app SIGKILLed in its handler after answering 200: acknowledged, not finished, exit 1', async () => {
    const attempts: AttemptReport[] = [];
    emulator = createEmulator({
      allowInsecureLoopback: true,
      webhookSecret: SECRET,
      onAttempt: (a) => void attempts.push(a),
    });
    const env = { SMS_API_KEY: 'sk_test_audit_crash', SMS_API_BASE_URL: await emulator.listen() };
    const prefix = `audit-crash-${randomBytes(4).toString('hex')}:`;
    const app = await startApp('crashing-app.ts', { REDIS_URL: redis.url, STORE_PREFIX: prefix, SECRET });
    try {
      const url = await app.printed('url');
      const created = await runCli(
        ['webhooks', 'create', '--url', url, '--events', 'message.sent', '--json'],
        env,
      );
      const webhook = JSON.parse(created.stdout) as { id: string };

      const [event] = emulator.emit('message.sent');
      expect(await app.printed('handling')).toBe(event!.id);
      // The 200 has reached the service's side before the kill, as a fast 200 does.
      await vi.waitFor(() => expect(attempts.map((a) => a.statusCode)).toEqual([200]));
      app.kill();
      const [, signal] = await app.exited;
      expect(signal).toBe('SIGKILL');

      const audit = await cli(
        ['audit', webhook.id, '--redis-url', redis.url, '--store-prefix', prefix, '--json'],
        env,
      );
      expect(audit.code).toBe(1);
      const report = JSON.parse(audit.stdout);
      expect(report).toMatchObject({
        webhookId: webhook.id,
        counts: { missed: 0, retrying: 0, unfinished: 1, fine: 0 },
        ok: false,
      });
      expect(report.events).toEqual([
        expect.objectContaining({
          eventId: event!.id,
          category: 'unfinished',
          stored: 'in-flight',
          attempts: 1,
          lastStatusCode: 200,
          nextAttemptAt: null,
        }),
      ]);
      expect(JSON.parse(audit.stderr)).toEqual({
        error: { code: 'audit_failed', message: `0 missed and 1 unfinished event(s) on ${webhook.id}.` },
      });
    } finally {
      app.kill();
    }
  });
});
