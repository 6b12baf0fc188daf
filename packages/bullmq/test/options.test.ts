import { createWorker, enqueueTo } from '@sms-webhooks/bullmq';
import { createReceiver } from '@sms-webhooks/core';
import { describe, expect, it } from 'vitest';

// An option read from an environment variable arrives as a string: the message names its type, so
// `timeoutMs: "5000"` does not read as if 5000 had been refused. The checks run before any connection.
describe('number options given as strings', () => {
  const queue = { add: async () => ({}) } as never;

  it('enqueueTo names the string it got', () => {
    expect(() => enqueueTo(queue, { timeoutMs: '5000' as never })).toThrow(
      expect.objectContaining({
        code: 'ERR_SMS_OPTIONS',
        message: '@sms-webhooks/bullmq: `timeoutMs` must be a positive integer of ms, got the string "5000".',
      }),
    );
    expect(() => enqueueTo(queue, { attempts: '8' as never })).toThrow(/`attempts`.*got the string "8"/);
  });

  it('createWorker names the string it got', () => {
    expect(() =>
      createWorker({}, { connection: { host: '127.0.0.1', port: 1 }, leaseMs: '300000' as never }),
    ).toThrow(
      expect.objectContaining({
        code: 'ERR_SMS_OPTIONS',
        message: expect.stringMatching(
          /^@sms-webhooks\/bullmq: `leaseMs` must be .* got the string "300000"\.$/,
        ),
      }),
    );
  });
});

// Job ids are the event id alone: two tenants' events with one id would become one job.
describe('enqueueTo with many tenants', () => {
  it('is refused at start-up when `secret` is a function of the request', () => {
    const queue = { add: async () => ({}) } as never;
    expect(() =>
      createReceiver({ secret: () => 'whsec_x0123456789abcdef0123456789ab', dispatch: enqueueTo(queue) }),
    ).toThrow(
      expect.objectContaining({ code: 'ERR_SMS_OPTIONS', message: expect.stringContaining('tenants') }),
    );
  });
});
