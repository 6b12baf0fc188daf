import { createClient } from '@sms-webhooks/client';
import { freePort } from '@sms-webhooks/test-helpers/free-port';
import { retryAfterMs } from '../src/retry-after.js';
import { closeEmulator, rejection, startEmulatorClient } from './emulator-client.js';

// Small fixes from a conformance audit against the spec (issue 16); each failed before its fix.

afterEach(closeEmulator);

describe('Retry-After', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  it.each([
    ['1.5', 1000],
    ['-1', 1000],
    ['0.5', 1000],
    ['1e3', 1000],
    ['', 1000],
    [null, 1000],
    ['soon', 1000],
    ['2', 2000],
    ['0', 0],
    [' 3 ', 3000],
    ['Tue, 01 Jan 2030 00:00:05 GMT', 5000],
    ['Mon, 31 Dec 2029 23:59:00 GMT', 0],
  ])('%j waits %d ms (fractions and negatives are unreadable: the 1 s fallback)', (value, ms) => {
    expect(retryAfterMs(value, now)).toBe(ms);
  });
});

describe('webhook ids', () => {
  it('sends any wh_ id the service could issue, and the service answers for it', async () => {
    const { client, seen } = await startEmulatorClient();
    for (const id of ['wh_with_underscore', 'wh_with-dash', 'wh_a.b~c']) {
      expect(await rejection(client.deleteWebhook(id))).toMatchObject({
        status: 404,
        code: 'not_found',
        sent: true,
      });
    }
    expect(seen.filter((s) => s.method === 'DELETE').map((s) => `${s.method} ${s.path}`)).toEqual([
      'DELETE /v1/webhooks/wh_with_underscore',
      'DELETE /v1/webhooks/wh_with-dash',
      'DELETE /v1/webhooks/wh_a.b~c',
    ]);
  });

  it('still refuses what is not a webhook id, without a request', async () => {
    const { client, seen } = await startEmulatorClient();
    for (const id of ['', 'wh_', 'evt_1', 'x/../wh_y']) {
      expect(await rejection(client.deleteWebhook(id))).toMatchObject({
        code: 'validation_error',
        sent: false,
      });
    }
    expect(seen).toEqual([]);
  });
});

describe('length limits count characters', () => {
  it('accepts a description of 150 emoji (300 UTF-16 units) and refuses 201 characters', async () => {
    const { client } = await startEmulatorClient();
    const input = { url: 'https://app.example/webhooks', events: ['message.sent' as const] };
    const webhook = await client.createWebhook({ ...input, description: '📨'.repeat(150) });
    expect(webhook.description).toBe('📨'.repeat(150));
    expect(await rejection(client.createWebhook({ ...input, description: '📨'.repeat(201) }))).toMatchObject({
      sent: false,
      details: [{ field: 'description', message: expect.any(String) }],
    });
    const url = `https://app.example/${'📨'.repeat(250)}`; // 270 characters, 520 UTF-16 units
    expect((await client.createWebhook({ ...input, url })).url).toBe(url);
  });
});

describe('an unreachable service', () => {
  it('names the reason and the address instead of a bare "fetch failed"', async () => {
    // A port that was just free: nothing listens there.
    const port = await freePort();
    const client = createClient({ apiKey: 'sk_test_x', baseUrl: `http://127.0.0.1:${port}` });
    const error = await rejection(client.listWebhooks());
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(error.message).toContain(`127.0.0.1:${port}`);
  });
});
