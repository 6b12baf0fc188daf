import { SmsWebhooksError } from '@sms-webhooks/core';
import { describe, expect, it } from 'vitest';

class DemoError extends SmsWebhooksError<'ERR_DEMO_DOWN' | 'ERR_DEMO_SLOW'> {
  static override readonly package = '@demo/store';
  override readonly name = 'DemoError';
}

describe('SmsWebhooksError', () => {
  it("begins each message with the subclass's package and keeps code, name and cause", () => {
    const cause = new Error('ECONNREFUSED');
    const error = new DemoError('ERR_DEMO_DOWN', 'no answer.', { cause });
    expect(error.message).toBe('@demo/store: no answer.');
    expect(error.code).toBe('ERR_DEMO_DOWN');
    expect(error.name).toBe('DemoError');
    expect(error.cause).toBe(cause);
    expect(error).toBeInstanceOf(SmsWebhooksError);
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).toBe('DemoError: @demo/store: no answer.');
  });

  it("is core's own when thrown without a subclass", () => {
    const error = new SmsWebhooksError('ERR_ANY', 'plain.');
    expect(error.message).toBe('@sms-webhooks/core: plain.');
    expect(error.name).toBe('SmsWebhooksError');
    expect(error.cause).toBeUndefined();
  });
});
