import { createReceiver, createTestDelivery, signPayload } from '@sms-webhooks/core';
import { describe, expect, it } from 'vitest';

// signPayload and createTestDelivery used to sign with a secret createReceiver refuses (a stray newline
// from a .env file), and the delivery then failed with a bare `signature_mismatch`. They now run the
// receiver's own secret check and throw the same TypeError.

const secret = 'whsec_sign0123456789abcdef0123456789';

const padded: [string, unknown, RegExp][] = [
  ['a trailing newline', `${secret}\n`, /leading or trailing whitespace.*Trim it/],
  ['a leading space', ` ${secret}`, /leading or trailing whitespace/],
  ['an empty secret', '', /`secret` is empty/],
  ['a number', 42, /`secret` must be a string/],
  ['undefined', undefined, /`secret` must be a string/],
];

describe('the secret given to the signing helpers', () => {
  it.each(padded)('signPayload refuses %s as createReceiver does', (_case, bad, message) => {
    expect(() => signPayload('{}', bad as string)).toThrow(TypeError);
    expect(() => signPayload('{}', bad as string)).toThrow(message);
    if (typeof bad === 'string') expect(() => createReceiver({ secret: bad })).toThrow(message);
  });

  it.each(padded)('createTestDelivery refuses %s as createReceiver does', (_case, bad, message) => {
    expect(() => createTestDelivery('message.sent', { secret: bad as string })).toThrow(TypeError);
    expect(() => createTestDelivery('message.sent', { secret: bad as string })).toThrow(message);
  });

  it('never puts the secret in the message', () => {
    expect(() => signPayload('{}', `${secret} `)).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(secret) }),
    );
  });

  it('still signs with a clean secret, and the receiver accepts it', async () => {
    const receiver = createReceiver({ secret });
    const d = createTestDelivery('message.sent', { secret });
    const reply = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect(reply.status).toBe(200);
    expect(signPayload('{}', secret, { timestamp: 1 })).toMatch(/^t=1,v1=[0-9a-f]{64}$/);
  });
});
