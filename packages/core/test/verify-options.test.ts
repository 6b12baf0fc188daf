import {
  createReceiver,
  createTestDelivery,
  signPayload,
  verifySignature,
  verifyWebhook,
} from '@sms-webhooks/core';
import { describe, expect, it } from 'vitest';

// verifyWebhook and verifySignature take their options on every call; before these checks a NaN
// tolerance accepted a signature from 1970 and an empty secret reached node:crypto. They now run the
// same checks as createReceiver and throw the same TypeErrors, before looking at the request.

const secret = 'whsec_options0123456789abcdef0123';
const now = 1_800_000_000;
// A correctly signed delivery from 1970: only the tolerance check stands between it and acceptance.
const ancient = createTestDelivery('message.delivered', { secret, timestamp: 0 });
const fresh = createTestDelivery('message.delivered', { secret, timestamp: now });

const badOptions: [string, Record<string, unknown>, RegExp][] = [
  ['no secret', {}, /`secret` is required/],
  ['an empty secret', { secret: '' }, /`secret` is empty/],
  ['a secret with a leading space', { secret: ` ${secret}` }, /leading or trailing whitespace.*Trim it/],
  ['a secret with a trailing newline', { secret: `${secret}\n` }, /whitespace/],
  ['an empty secret list', { secret: [] }, /`secret` is required/],
  ['an empty secret in a list', { secret: [secret, ''] }, /`secret\[1\]` is empty/],
  ['a non-string secret in a list', { secret: [secret, 42] }, /`secret\[1\]` must be a string/],
  ['a secret that is a number', { secret: 42 }, /`secret` is required/],
  ['a NaN tolerance', { secret, tolerance: Number.NaN }, /`tolerance` must be a positive number/],
  ['a zero tolerance', { secret, tolerance: 0 }, /`tolerance` must be a positive number/],
  ['a negative tolerance', { secret, tolerance: -300 }, /`tolerance`/],
  ['an infinite tolerance', { secret, tolerance: Number.POSITIVE_INFINITY }, /`tolerance`/],
  ['a tolerance given as a string', { secret, tolerance: '300' }, /`tolerance`/],
  ['a NaN now', { secret, now: Number.NaN }, /`now` must be the current time in unix seconds/],
];

describe.each([
  ['verifyWebhook', (d: typeof fresh, o: unknown) => verifyWebhook(d.body, d.headers, o as never)],
  [
    'verifySignature',
    (d: typeof fresh, o: unknown) => verifySignature(d.body, d.headers['x-service-signature'], o as never),
  ],
])('%s options', (_name, call) => {
  it.each(badOptions)('refuses %s with a TypeError saying what to fix', (_case, options, message) => {
    for (const d of [fresh, ancient]) {
      let thrown: unknown;
      try {
        call(d, { now, ...options });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TypeError);
      expect((thrown as Error).message).toMatch(message);
      expect((thrown as Error).message).not.toContain(secret);
    }
  });

  it('refuses a missing options object', () => {
    expect(() => call(fresh, undefined)).toThrow(/needs an options object with a `secret`/);
    expect(() => call(fresh, null)).toThrow(TypeError);
  });

  it('still refuses a 1970 signature with the default tolerance, and accepts a fresh one', () => {
    expect(() => call(ancient, { secret, now })).toThrow(
      expect.objectContaining({ code: 'timestamp_out_of_tolerance' }),
    );
    expect(() => call(fresh, { secret, now })).not.toThrow();
    expect(() => call(fresh, { secret: ['whsec_old', secret], tolerance: 1, now })).not.toThrow();
  });
});

describe('shared with createReceiver', () => {
  const messageOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return (error as Error).message;
    }
    return 'no error';
  };

  it.each(badOptions.filter(([, o]) => !('now' in o)))('gives the same message for %s', (_case, options) => {
    const fromReceiver = messageOf(() => createReceiver(options as never));
    expect(messageOf(() => verifyWebhook(fresh.body, fresh.headers, options as never))).toBe(fromReceiver);
  });

  it('checks headerPrefix like createReceiver, and switching prefixes reads the right headers', () => {
    expect(() => verifyWebhook(fresh.body, fresh.headers, { secret, headerPrefix: 'x service' })).toThrow(
      /`headerPrefix` must be a header-name prefix/,
    );
    const body = fresh.body;
    const signature = signPayload(body, secret, { timestamp: now });
    for (const prefix of ['x-acme', 'x-other', 'x-acme', undefined]) {
      const headers = { [`${prefix ?? 'x-service'}-signature`]: signature };
      expect(verifyWebhook(body, headers, { secret, now, headerPrefix: prefix }).id).toBe(fresh.event.id);
      // The other prefix's header is not read.
      expect(() => verifyWebhook(body, headers, { secret, now, headerPrefix: 'x-nope' })).toThrow(
        expect.objectContaining({ code: 'signature_missing' }),
      );
    }
  });
});
