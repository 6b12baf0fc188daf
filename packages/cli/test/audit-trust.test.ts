import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReceiver } from '@sms-webhooks/core';
import { createEmulator, type Emulator } from '@sms-webhooks/emulator';
import { RedisStore } from '@sms-webhooks/redis';
import { captureLogger } from '@sms-webhooks/test-helpers';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { Redis } from 'ioredis';
import { receiverServer } from './app-process.js';
import { runCli } from './helpers.js';

// The audit from the CLI: a report it cannot trust exits 2, the service's malformed answer is named as
// such, and no connection URL's password reaches any output.

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(() => redis?.stop());
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A service on loopback that answers the token exchange and one deliveries list, as given. */
async function fakeService(deliveries: unknown): Promise<string> {
  const server: Server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/v1/auth/token') {
      res.end(
        JSON.stringify({
          access_token: 'tok_audit',
          token_type: 'bearer',
          expires_in: 172800,
          expires_at: new Date(Date.now() + 172_800_000).toISOString(),
          mode: 'test',
          workspace_id: 'ws_audit',
        }),
      );
      return;
    }
    res.end(JSON.stringify({ object: 'list', data: deliveries }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('sms-webhooks audit: answers it can and cannot trust', () => {
  it('exits 2 when none of the delivered events is in the store (a wrong --store-prefix), 0 with the right one', async () => {
    const emulator: Emulator = createEmulator({ allowInsecureLoopback: true });
    closers.push(() => emulator.close());
    const env = { SMS_API_KEY: 'sk_test_trust', SMS_API_BASE_URL: await emulator.listen() };
    const client = new Redis(redis.url);
    closers.push(() => client.quit());
    const prefix = `trust-${randomBytes(4).toString('hex')}:`;
    const app = await receiverServer(
      createReceiver({ secret: 'whsec_placeholder_0123456789abcdef', logger: captureLogger() }),
    );
    closers.push(app.close);
    const url = app.url;
    const webhook = JSON.parse(
      (await runCli(['webhooks', 'create', '--url', url, '--events', 'message.sent', '--json'], env)).stdout,
    ) as { id: string; secret: string };
    const store = new RedisStore({ client, clientType: 'ioredis', prefix });
    app.use(
      createReceiver({
        secret: webhook.secret,
        store,
        respond: 'after-handlers',
        logger: captureLogger(),
      }).on('message.sent', () => {}),
    );
    emulator.emit('message.sent');
    emulator.emit('message.sent');
    await emulator.waitForIdle(5000);

    const base = ['audit', webhook.id, '--redis-url', redis.url, '--handles', 'message.sent'];
    expect(await runCli([...base, '--store-prefix', prefix], env)).toMatchObject({ code: 0 });
    const wrong = await runCli([...base, '--store-prefix', 'sms-webhooks:'], env);
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toMatch(/^warning: None of the 2 delivered event\(s\) is in the store/m);
    expect(wrong.stderr).toMatch(/^error: the audit of wh_\w+ cannot be trusted: .*--store-prefix/);
    const json = await runCli([...base, '--store-prefix', 'sms-webhooks:', '--json'], env);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ trusted: false, ok: false });
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'audit_untrusted' } });
  });

  it("names the service's malformed record and its field, never the store", async () => {
    const baseUrl = await fakeService([
      {
        id: 'whd_1',
        object: 'webhook_delivery',
        status: 'pending',
        attempts: 1,
        created_at: 1_732_800_000,
        event_id: 'evt_1',
        event_type: 'message.sent',
        delivered_at: null,
        last_error: null,
        last_status_code: 200,
        next_attempt_at: null,
        test: false,
      },
    ]);
    const env = { SMS_API_KEY: 'sk_test_bad', SMS_API_BASE_URL: baseUrl };
    const result = await runCli(['audit', 'wh_bad', '--redis-url', redis.url], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /deliveries list of wh_bad is malformed: record 0 \("whd_1"\) has `created_at` 1732800000/,
    );
    expect(result.stderr).not.toMatch(/dedupe store|localeCompare/);
    const json = await runCli(['audit', 'wh_bad', '--redis-url', redis.url, '--json'], env);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'ERR_SMS_OPS_BAD_ANSWER' } });
  });
});

describe('no password in any output', () => {
  const env = { SMS_API_KEY: 'sk_test_redact', SMS_API_BASE_URL: 'http://127.0.0.1:9' };
  it.each([
    ['--database-url', 'postgres://app:hunter2-secret@127.0.0.1:99999/app'],
    ['--redis-url', 'redis://:hunter2-secret@127.0.0.1:99999'],
    ['--amqp-url', 'amqp://guest:hunter2-secret@127.0.0.1:99999'],
  ])('a usage error on %s shows the URL without its password', async (flag, url) => {
    for (const extra of [[], ['--json']]) {
      const result = await runCli(['audit', 'wh_x', flag, url, ...extra], env);
      expect(result.code).toBe(2);
      expect(result.stdout + result.stderr).not.toContain('hunter2');
      expect(result.stdout + result.stderr).toContain('***@127.0.0.1:99999');
    }
  });

  it('a store that cannot be reached is named without the password', async () => {
    const result = await runCli(
      ['audit', 'wh_x', '--database-url', 'postgres://app:hunter2-secret@127.0.0.1:1/app'],
      {
        SMS_API_KEY: 'sk_test_redact',
        SMS_API_BASE_URL: await fakeService([
          {
            id: 'whd_2',
            object: 'webhook_delivery',
            status: 'pending',
            attempts: 1,
            created_at: new Date().toISOString(),
            event_id: 'evt_2',
            event_type: 'message.sent',
            delivered_at: new Date().toISOString(),
            last_error: null,
            last_status_code: 200,
            next_attempt_at: null,
            test: false,
          },
        ]),
      },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/could not read the dedupe store/);
    expect(result.stdout + result.stderr).not.toContain('hunter2');
  });
});
