import { createClient } from '@sms-webhooks/client';
import { positiveOption } from '@sms-webhooks/internal';
import { describe, expect, it } from 'vitest';

const base = { apiKey: 'sk_test_x', baseUrl: 'http://127.0.0.1:1' };

describe('the client option checks', () => {
  // An option read from an environment variable arrives as a string: the message names its type.
  it('names the type of a string given for a number option', () => {
    expect(() => createClient({ ...base, timeoutMs: '30000' as never })).toThrow(
      expect.objectContaining({
        code: 'ERR_SMS_OPTIONS',
        message: '@sms-webhooks/client: `timeoutMs` must be a positive number of ms, got the string "30000".',
      }),
    );
    expect(() => createClient({ ...base, maxRetries: '2' as never })).toThrow(
      /`maxRetries` must be 0 or a positive integer, got the string "2"\./,
    );
    expect(() => createClient({ ...base, maxRetryWaitMs: -1 })).toThrow(/`maxRetryWaitMs`.* got -1\./);
    expect(() => createClient({ ...base, refreshMarginMs: '60000' as never })).toThrow(
      /refreshMarginMs must be .* got the string "60000"\./,
    );
    expect(() => createClient({ ...base, maxRetries: 0, maxRetryWaitMs: 0, timeoutMs: 1 })).not.toThrow();
  });

  // The shared checks, bundled into the client's build: the same words as every other package's.
  it('words a mistake as the other packages do', () => {
    expect(() => createClient({ ...base, timeoutMs: '1' as never })).toThrow(
      (() => {
        try {
          positiveOption('timeoutMs', '1', 1, { owner: '@sms-webhooks/client', unit: 'ms' });
        } catch (error) {
          return (error as Error).message;
        }
      })(),
    );
  });
});
