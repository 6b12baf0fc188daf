import { createEmulator } from '@sms-webhooks/emulator';
import { recordingApp } from '@sms-webhooks/test-helpers/recording-app';
import { emulatorWithApp } from './emulator-with-app.js';
import { closeAll, startEmulator } from './helpers.js';

// Small fixes from a conformance audit against the spec (issue 16), each failing before its fix.

afterEach(closeAll);

describe('the token exchange', () => {
  it('reads the body api_key when X-API-Key is present but empty', async () => {
    const { call } = await startEmulator();
    const res = await call('POST', '/v1/auth/token', {
      headers: { 'x-api-key': '' },
      body: { api_key: 'sk_test_body' },
    });
    expect(res.status).toBe(200);
    expect(res.body.mode).toBe('test');
  });

  it('still answers 401 when the empty header is the only credential', async () => {
    const { call } = await startEmulator();
    const res = await call('POST', '/v1/auth/token', { headers: { 'x-api-key': '' } });
    expect(res.status).toBe(401);
  });
});

describe('webhook input', () => {
  it('counts the 200-character description in characters, not UTF-16 units', async () => {
    const { call, token } = await startEmulator();
    const t = await token();
    const base = { url: 'https://app.example/webhooks', events: ['message.sent'] };
    const emoji = await call('POST', '/v1/webhooks', {
      token: t,
      body: { ...base, description: '📨'.repeat(150) },
    });
    expect(emoji.status).toBe(201);
    const tooLong = await call('POST', '/v1/webhooks', {
      token: t,
      body: { ...base, description: '📨'.repeat(201) },
    });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error.details).toEqual([{ field: 'description', message: expect.any(String) }]);
  });

  it('counts the 500-character url in characters', async () => {
    const { call, token } = await startEmulator();
    const url = `https://app.example/${'📨'.repeat(250)}`; // 270 characters, 520 UTF-16 units
    const res = await call('POST', '/v1/webhooks', {
      token: await token(),
      body: { url, events: ['message.sent'] },
    });
    expect(res.status).toBe(201);
  });

  it('takes any wh_ id in a path (the spec gives only the prefix): an unknown one is 404 on DELETE', async () => {
    const { call, token } = await startEmulator();
    const t = await token();
    for (const id of ['wh_with_underscore', 'wh_with-dash']) {
      const res = await call('DELETE', `/v1/webhooks/${id}`, { token: t });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

describe('webhookSecret', () => {
  it('gives every webhook the fixed secret, and deliveries are signed with it', async () => {
    const target = await recordingApp();
    const secret = 'whsec_fixed_for_local_development';
    const { call, token, emulator } = await startEmulator({
      allowInsecureLoopback: true,
      webhookSecret: secret,
    });
    const t = await token();
    const a = await call('POST', '/v1/webhooks', {
      token: t,
      body: { url: target.url, events: ['message.sent'] },
    });
    const b = await call('POST', '/v1/webhooks', {
      token: t,
      body: { url: target.url, events: ['sms.completed'] },
    });
    expect([a.body.secret, b.body.secret]).toEqual([secret, secret]);
    const { verifyWebhook } = await import('@sms-webhooks/core');
    emulator.emit('message.sent');
    await emulator.waitForIdle(5000);
    await target.close();
    const [delivery] = target.requests;
    expect(verifyWebhook(delivery!.body, delivery!.headers as Record<string, string>, { secret }).type).toBe(
      'message.sent',
    );
  });

  it.each([' whsec_padded', 'whsec_x\n', 'not_a_secret', ''])(
    'refuses %j with a TypeError',
    (webhookSecret) => {
      expect(() => createEmulator({ webhookSecret })).toThrow(/webhookSecret must be a whsec_/);
    },
  );
});

describe('redelivery', () => {
  it('carries the next attempt number, capped at 6, with the same id and body', async () => {
    const { call, emulator, target } = await emulatorWithApp();
    const [event] = emulator.emit('message.sent');
    await emulator.waitForIdle(5000);
    const route = await call('POST', `/_emulator/events/${event!.id}/redeliver`);
    expect(route.status).toBe(202);
    expect(route.body.data[0].attempts).toBe(2);
    await emulator.waitForIdle(5000);
    for (let i = 0; i < 6; i++) {
      emulator.redeliver(event!.id);
      await emulator.waitForIdle(5000);
    }
    await target.close();
    expect(target.requests.map((r) => r.headers['x-service-delivery-attempt'])).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '6',
      '6',
    ]);
    expect(new Set(target.requests.map((r) => r.body)).size).toBe(1);
  });
});

describe('waitForIdle()', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('by default outlasts the whole retry schedule at the time scale (52.6 s at 1/1000)', async () => {
    // Only the timers are fake, so the 14.6 h schedule at 1/1000 passes in moments; the refused
    // connections are real.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const emulator = createEmulator({ allowInsecureLoopback: true, timeScale: 1 / 1000, rateLimit: false });
    const baseUrl = await emulator.listen();
    const { createClient } = await import('@sms-webhooks/client');
    const client = createClient({ apiKey: 'sk_test_idle', baseUrl, allowInsecureLoopback: true });
    const webhook = await client.createWebhook({
      url: 'http://127.0.0.1:1/webhooks',
      events: ['message.sent'],
    });
    emulator.emit('message.sent');
    let outcome: 'idle' | Error | undefined;
    emulator.waitForIdle().then(
      () => {
        outcome = 'idle';
      },
      (error: Error) => {
        outcome = error;
      },
    );
    for (let elapsed = 0; elapsed < 70_000 && outcome === undefined; elapsed += 500) {
      await vi.advanceTimersByTimeAsync(500);
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    }
    expect(outcome).toBe('idle');
    expect(emulator.deliveries(webhook.id)[0]).toMatchObject({ attempts: 6, status: 'failed' });
    await emulator.close();
  });
});
