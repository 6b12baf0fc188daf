import { createEmulator } from '@sms-webhooks/emulator';
import { recordingApp } from '@sms-webhooks/test-helpers/recording-app';
import { emulatorWithApp } from './emulator-with-app.js';
import { closeAll, startEmulator } from './helpers.js';

afterEach(closeAll);

describe('emulator-only routes', () => {
  it('POST /_emulator/sends plays a send: sent, delivered or failed, replies, completed', async () => {
    const { call, emulator, target } = await emulatorWithApp([
      'message.sent',
      'message.delivered',
      'message.failed',
      'message.replied',
      'sms.completed',
    ]);
    const res = await call('POST', '/_emulator/sends', {
      body: {
        to: ['+15555550100', '+15555550101'],
        fail: ['+15555550101'],
        replies: { '+15555550100': 'YES' },
        metadata: { order: '7' },
      },
    });
    expect(res.status).toBe(202);
    expect(res.body.sms_id).toMatch(/^sms_/);
    expect(res.body.events.map((e: { type: string }) => e.type)).toEqual([
      'message.sent',
      'message.sent',
      'message.delivered',
      'message.failed',
      'message.replied',
      'sms.completed',
    ]);
    await emulator.waitForIdle(5000);
    await target.close();
    const bodies = target.json();
    const byType = (type: string) => bodies.filter((b) => b.type === type);
    expect(byType('message.failed')[0]!.data).toMatchObject({
      to: '+15555550101',
      status: 'failed',
      error: { code: expect.any(String) },
    });
    expect(byType('message.replied')[0]!.data).toMatchObject({
      to: '+15555550100',
      status: 'replied',
      text: 'YES',
      metadata: { order: '7' },
    });
    expect(byType('sms.completed')[0]!.data).toMatchObject({
      id: res.body.sms_id,
      recipients: 2,
      delivered: 1,
      failed: 1,
    });
    expect(bodies.every((b) => b.test === true)).toBe(true);
  });

  it('POST /_emulator/events emits one event with data merged over the sample', async () => {
    const { call, emulator, target } = await emulatorWithApp();
    const res = await call('POST', '/_emulator/events', {
      body: { type: 'message.sent', data: { to: '+15555550177' } },
    });
    expect(res.status).toBe(202);
    expect(res.body.events).toEqual([
      expect.objectContaining({ id: expect.stringMatching(/^evt_/), type: 'message.sent' }),
    ]);
    await emulator.waitForIdle(5000);
    await target.close();
    expect(target.json()).toEqual([
      expect.objectContaining({
        type: 'message.sent',
        data: expect.objectContaining({ to: '+15555550177' }),
      }),
    ]);
  });

  it('scopes events to one workspace with workspace_id', async () => {
    const target = await recordingApp();
    const { call, token, emulator } = await startEmulator({ allowInsecureLoopback: true });
    for (const key of ['sk_test_a', 'sk_test_b']) {
      await call('POST', '/v1/webhooks', {
        token: await token(key),
        body: { url: target.url, events: ['sms.completed'] },
      });
    }
    const wsA = (await call('POST', '/v1/auth/token', { headers: { 'x-api-key': 'sk_test_a' } })).body
      .workspace_id;
    const res = await call('POST', '/_emulator/events', {
      body: { type: 'sms.completed', workspace_id: wsA },
    });
    expect(res.body.events).toHaveLength(1);
    await emulator.waitForIdle(5000);
    await target.close();
    expect(target.requests).toHaveLength(1);
  });

  it.each([
    ['/_emulator/sends', { to: ['5555'] }, 'to'],
    ['/_emulator/sends', { recipients: 0 }, 'recipients'],
    ['/_emulator/sends', { replies: { '+15555550100': 1 } }, 'replies'],
    ['/_emulator/events', { type: 'message.lost' }, 'type'],
    ['/_emulator/events', { type: 'message.sent', data: [] }, 'data'],
  ])('%s refuses %j with 422 naming %s', async (path, body, field) => {
    const { call } = await startEmulator();
    const res = await call('POST', path, { body });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toContainEqual({ field, message: expect.any(String) });
  });

  it('redelivers a sent event with the same id and body, and 422 for an unknown one', async () => {
    const { call, emulator, target } = await emulatorWithApp();
    const [event] = emulator.emit('message.sent');
    await emulator.waitForIdle(5000);
    const res = await call('POST', `/_emulator/events/${event!.id}/redeliver`);
    expect(res.status).toBe(202);
    await emulator.waitForIdle(5000);
    await target.close();
    const bodies = target.json();
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toEqual(bodies[0]);
    expect((await call('POST', '/_emulator/events/evt_unknown/redeliver')).status).toBe(422);
  });

  it('reports health and pending deliveries', async () => {
    const { call } = await startEmulator();
    expect((await call('GET', '/_emulator/health')).body).toEqual({ ok: true, pending_deliveries: 0 });
  });
});

describe('createEmulator', () => {
  it('refuses nonsense options with a TypeError naming the option', () => {
    expect(() => createEmulator({ timeScale: 0 })).toThrow(/`timeScale` must be a positive number/);
    expect(() => createEmulator({ rateLimit: { limit: -1, windowMs: 1000 } })).toThrow(/rateLimit.limit/);
    expect(() => createEmulator({ rateLimit: { windowMs: 1000 } as never })).toThrow(
      /`rateLimit.limit` must be a positive number, got undefined/,
    );
    // From an environment variable: the message names the type, not just `got 5000`.
    expect(() => createEmulator({ deliveryTimeoutMs: '5000' as never })).toThrow(
      expect.objectContaining({
        code: 'ERR_SMS_OPTIONS',
        message:
          '@sms-webhooks/emulator: `deliveryTimeoutMs` must be a positive number of ms, got the string "5000".',
      }),
    );
  });

  it('waitForIdle rejects after its time-out while a retry is scheduled', async () => {
    const { call, token, emulator } = await startEmulator({ allowInsecureLoopback: true });
    await call('POST', '/v1/webhooks', {
      token: await token(),
      body: { url: 'http://127.0.0.1:1/hook', events: ['message.sent'] },
    });
    emulator.emit('message.sent');
    await expect(emulator.waitForIdle(200)).rejects.toThrow(/1 retry\(ies\) scheduled after 200 ms/);
  });

  it('url throws before listen()', () => {
    expect(() => createEmulator().url).toThrow(/call listen\(\) first/);
  });
});
