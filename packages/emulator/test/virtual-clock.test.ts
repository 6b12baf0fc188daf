import { VirtualClock } from '@sms-webhooks/core/testing';
import { createEmulator } from '@sms-webhooks/emulator';
import { closeAll, startEmulator } from './helpers.js';

afterEach(closeAll);

describe('the emulator on a VirtualClock', () => {
  it('expires tokens after 48 h of virtual time, and times its records by the clock', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const h = await startEmulator({ clock });
    const exchanged = await h.call('POST', '/v1/auth/token', { headers: { 'x-api-key': 'sk_test_clock' } });
    expect(exchanged.body.expires_at).toBe('2026-01-03T00:00:00.000Z');
    const token = exchanged.body.access_token as string;
    expect((await h.call('GET', '/v1/webhooks', { token })).status).toBe(200);
    await clock.advance('47h');
    expect((await h.call('GET', '/v1/webhooks', { token })).status).toBe(200);
    await clock.advance('1h');
    const expired = await h.call('GET', '/v1/webhooks', { token });
    expect([expired.status, expired.body.error.message]).toEqual([401, expect.stringMatching(/expired/)]);
  });

  it('refuses a clock without now/setTimer, and a clock given with now', () => {
    // @ts-expect-error not a clock
    expect(() => createEmulator({ clock: { now: () => 0 } })).toThrow(/clock must have now\(\) and setTimer/);
    expect(() => createEmulator({ clock: new VirtualClock(), now: () => 0 })).toThrow(
      /clock or now, not both/,
    );
  });
});
