import { createHmac } from 'node:crypto';
import {
  createTestDelivery,
  createTestDeliveryAsync,
  signPayload,
  signPayloadAsync,
  verifyWebhook,
} from '@sms-webhooks/core';

// The async twins give what the sync helpers give on Node; test/runtimes/test-delivery-workerd.test.ts runs
// them in workerd without nodejs_compat, on the Web build's Web Crypto.

const secret = 'whsec_async0123456789abcdef0123456789';

describe('signPayloadAsync', () => {
  it.each([
    ['ASCII text', '{"id":"evt_1"}'],
    ['multi-byte text', '{"to":"+1555 ☎ é"}'],
    ['bytes', new TextEncoder().encode('{"id":"evt_2"}')],
  ] as const)('signs %s as signPayload and as an HMAC-SHA256 over `${t}.` + body', async (_, payload) => {
    const signed = await signPayloadAsync(payload, secret, { timestamp: 1_700_000_000 });
    expect(signed).toBe(signPayload(payload, secret, { timestamp: 1_700_000_000 }));
    const hmac = createHmac('sha256', secret).update('1700000000.').update(payload).digest('hex');
    expect(signed).toBe(`t=1700000000,v1=${hmac}`);
  });

  it('defaults the timestamp to now', async () => {
    const before = Math.floor(Date.now() / 1000);
    const t = Number(/^t=(\d+),/.exec(await signPayloadAsync('{}', secret))![1]);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('rejects a secret createReceiver would refuse, with a TypeError', async () => {
    await expect(signPayloadAsync('{}', '')).rejects.toThrow(TypeError);
    await expect(signPayloadAsync('{}', ' whsec_padded ')).rejects.toThrow(TypeError);
    await expect(signPayloadAsync('{}', [secret] as never)).rejects.toThrow(TypeError);
  });
});

describe('createTestDeliveryAsync', () => {
  it('makes a delivery verifyWebhook accepts, shaped as createTestDelivery makes one', async () => {
    const d = await createTestDeliveryAsync('message.failed', { secret, attempt: 3, id: 'evt_async_1' });
    const sync = createTestDelivery('message.failed', { secret, attempt: 3, id: 'evt_async_1' });
    expect(Object.keys(d.headers).sort()).toEqual(Object.keys(sync.headers).sort());
    expect(d.headers['x-service-delivery-attempt']).toBe('3');
    expect(d.headers['x-service-event-id']).toBe('evt_async_1');
    const event = verifyWebhook(d.body, d.headers, { secret });
    expect(event).toEqual(d.event);
    expect(d.event.data.error?.code).toBe('unreachable');
  });

  it('honours headerPrefix, data and timestamp', async () => {
    const d = await createTestDeliveryAsync('message.delivered', {
      secret,
      headerPrefix: 'x-acme',
      data: { to: '+15550000000' },
      timestamp: 1_700_000_123,
    });
    expect(d.headers['x-acme-signature']).toMatch(/^t=1700000123,v1=[0-9a-f]{64}$/);
    expect(d.event.data.to).toBe('+15550000000');
    expect(d.headers['x-acme-signature']).toBe(signPayload(d.body, secret, { timestamp: 1_700_000_123 }));
  });
});
