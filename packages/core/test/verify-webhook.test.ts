import { createHmac } from 'node:crypto';
import {
  createTestDelivery,
  isWebhookVerificationError,
  signPayload,
  verifySignature,
  verifyWebhook,
  WebhookVerificationError,
} from '@sms-webhooks/core';
import { describe, expect, it } from 'vitest';

const secret = 'whsec_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const now = 1_800_000_000;

const envelope = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'evt_123',
    object: 'event',
    type: 'message.delivered',
    api_version: 'v1',
    created_at: '2026-11-22T10:00:00Z',
    test: false,
    data: { id: 'msg_1', to: '+15555550100' },
    ...extra,
  });

function signed(body: string | Buffer, options: { t?: number; key?: string } = {}) {
  return { 'x-service-signature': signPayload(body, options.key ?? secret, { timestamp: options.t ?? now }) };
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (error) {
    if (!isWebhookVerificationError(error)) throw error;
    return error.code;
  }
}

describe('signPayload', () => {
  it('is HMAC-SHA256 keyed with the secret string, over t, a dot and the body, in hex', () => {
    const body = envelope();
    const expected = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    expect(signPayload(body, secret, { timestamp: now })).toBe(`t=${now},v1=${expected}`);
  });
});

describe('verifyWebhook', () => {
  it('returns the parsed event for a correctly signed body (string, Buffer, Uint8Array)', () => {
    const body = envelope();
    const headers = signed(body);
    for (const raw of [body, Buffer.from(body), new Uint8Array(Buffer.from(body))]) {
      const event = verifyWebhook(raw, headers, { secret, now });
      expect(event.id).toBe('evt_123');
      expect(event.type).toBe('message.delivered');
    }
  });

  it('decodes ASCII and non-ASCII UTF-8 bodies alike, from a Buffer or a bare Uint8Array', () => {
    for (const text of ['plain ascii', 'Grüße, ça va? 你好 👋']) {
      const body = envelope({ data: { id: 'msg_1', to: '+15555550100', text } });
      const bytes = Buffer.from(body, 'utf8');
      // A view into a larger buffer, at an offset: the decode must read exactly its own bytes.
      const padded = Buffer.concat([Buffer.from('xx'), bytes, Buffer.from('yy')]);
      const view = new Uint8Array(padded.buffer, padded.byteOffset + 2, bytes.length);
      for (const raw of [bytes, view]) {
        const event = verifyWebhook(raw, signed(body), { secret, now }) as { data: { text?: string } };
        expect(event.data.text).toBe(text);
      }
    }
  });

  it('verifies the raw bytes: re-serialised JSON with other spacing does not match', () => {
    const body =
      '{ "id":"evt_1", "object":"event","type":"webhook.test","created_at":"x","test":true,"data":{} }';
    const headers = signed(body);
    expect(codeOf(() => verifyWebhook(body, headers, { secret, now }))).toBe('ok');
    expect(codeOf(() => verifyWebhook(JSON.stringify(JSON.parse(body)), headers, { secret, now }))).toBe(
      'signature_mismatch',
    );
  });

  it('refuses a tampered body, a wrong secret and a tampered timestamp', () => {
    const body = envelope();
    const headers = signed(body);
    expect(codeOf(() => verifyWebhook(body.replace('evt_123', 'evt_124'), headers, { secret, now }))).toBe(
      'signature_mismatch',
    );
    expect(codeOf(() => verifyWebhook(body, headers, { secret: `${secret}x`, now }))).toBe(
      'signature_mismatch',
    );
    const moved = {
      'x-service-signature': headers['x-service-signature'].replace(`t=${now}`, `t=${now + 1}`),
    };
    expect(codeOf(() => verifyWebhook(body, moved, { secret, now }))).toBe('signature_mismatch');
  });

  it('keeps leading zeros of t in the signed string', () => {
    const body = envelope();
    const t = `000${now}`;
    const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(
      codeOf(() => verifyWebhook(body, { 'x-service-signature': `t=${t},v1=${v1}` }, { secret, now })),
    ).toBe('ok');
  });

  it('checks the tolerance in both directions, inclusive at the edge', () => {
    const body = envelope();
    for (const [t, expected] of [
      [now - 300, 'ok'],
      [now + 300, 'ok'],
      [now - 301, 'timestamp_out_of_tolerance'],
      [now + 301, 'timestamp_out_of_tolerance'],
      [0, 'timestamp_out_of_tolerance'],
    ] as const) {
      expect(
        codeOf(() => verifyWebhook(body, signed(body, { t }), { secret, now })),
        `t=${t}`,
      ).toBe(expected);
    }
    expect(
      codeOf(() => verifyWebhook(body, signed(body, { t: now - 301 }), { secret, now, tolerance: 600 })),
    ).toBe('ok');
  });

  it('accepts any of several secrets (rotation) and any of several v1 values', () => {
    const body = envelope();
    const oldSecret = 'whsec_old';
    expect(
      codeOf(() =>
        verifyWebhook(body, signed(body, { key: oldSecret }), { secret: [secret, oldSecret], now }),
      ),
    ).toBe('ok');
    const good = signed(body)['x-service-signature'];
    const wrong = signed(body, { key: 'whsec_other' })['x-service-signature'].split(',')[1];
    expect(
      codeOf(() =>
        verifyWebhook(
          body,
          { 'x-service-signature': `${good.split(',')[0]},${wrong},${good.split(',')[1]}` },
          { secret, now },
        ),
      ),
    ).toBe('ok');
  });

  it('compares in constant time on equal-length buffers (a different-length v1 never reaches the compare)', () => {
    const body = envelope();
    const header = signed(body)['x-service-signature'];
    expect(codeOf(() => verifyWebhook(body, { 'x-service-signature': `${header}0` }, { secret, now }))).toBe(
      'signature_malformed',
    );
  });

  it('finds the signature header whatever its case, and in Fetch Headers', () => {
    const body = envelope();
    const value = signed(body)['x-service-signature'];
    expect(verifyWebhook(body, { 'X-Service-Signature': value }, { secret, now }).id).toBe('evt_123');
    expect(verifyWebhook(body, new Headers({ 'X-Service-Signature': value }), { secret, now }).id).toBe(
      'evt_123',
    );
  });

  it('honours a custom header prefix', () => {
    const body = envelope();
    const value = signed(body)['x-service-signature'];
    expect(
      verifyWebhook(body, { 'x-acme-signature': value }, { secret, now, headerPrefix: 'X-Acme' }).id,
    ).toBe('evt_123');
    expect(
      codeOf(() =>
        verifyWebhook(body, { 'x-service-signature': value }, { secret, now, headerPrefix: 'x-acme' }),
      ),
    ).toBe('signature_missing');
  });

  it.each([
    ['an empty body', ''],
    ['null', 'null'],
    ['an array', '[1,2]'],
    ['a number', '42'],
    ['not JSON', 'id=evt_1&type=x'],
    ['a BOM before the JSON', `\uFEFF${envelope()}`],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
    ['an id without evt_', envelope({ id: 'msg_1' })],
    ['an id that is only the prefix', envelope({ id: 'evt_' })],
    ['a numeric id', envelope({ id: 12 })],
    ['object other than event', envelope({ object: 'list' })],
    ['an empty type', envelope({ type: '' })],
    ['a missing created_at', envelope({ created_at: undefined })],
    ['test as a string', envelope({ test: 'false' })],
    ['data null', envelope({ data: null })],
    ['data an array', envelope({ data: [] })],
  ])('answers payload_invalid for %s, once the signature is right', (_name, body) => {
    expect(codeOf(() => verifyWebhook(body, signed(body), { secret, now }))).toBe('payload_invalid');
  });

  it('keeps __proto__ and constructor keys as plain data, without touching prototypes', () => {
    const body = envelope({
      data: JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":1}}'),
    });
    const raw = body.replace('"data":{', '"data":{"__proto__":{"polluted":true},');
    const event = verifyWebhook(raw, signed(raw), { secret, now });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(event.data, '__proto__')).toBe(true);
  });

  it('accepts an event type it does not know yet', () => {
    const body = envelope({ type: 'message.recalled' });
    expect(verifyWebhook(body, signed(body), { secret, now }).type).toBe('message.recalled');
  });

  it('requires the event-id and event-type headers, when present, to equal the body', () => {
    const body = envelope();
    const base = signed(body);
    expect(
      codeOf(() =>
        verifyWebhook(
          body,
          { ...base, 'x-service-event-id': 'evt_123', 'x-service-event-type': 'message.delivered' },
          { secret, now },
        ),
      ),
    ).toBe('ok');
    expect(
      codeOf(() => verifyWebhook(body, { ...base, 'x-service-event-id': 'evt_999' }, { secret, now })),
    ).toBe('header_mismatch');
    expect(
      codeOf(() =>
        verifyWebhook(body, { ...base, 'x-service-event-type': 'message.failed' }, { secret, now }),
      ),
    ).toBe('header_mismatch');
    expect(
      codeOf(() =>
        verifyWebhook(body, { ...base, 'x-service-event-id': ['evt_123', 'evt_999'] }, { secret, now }),
      ),
    ).toBe('header_mismatch');
  });

  it('checks the signature before looking at the body', () => {
    expect(codeOf(() => verifyWebhook('not json', signed('other'), { secret, now }))).toBe(
      'signature_mismatch',
    );
    expect(codeOf(() => verifyWebhook('not json', {}, { secret, now }))).toBe('signature_missing');
  });

  it('throws a TypeError that explains the fix when handed a parsed object', () => {
    expect(() => verifyWebhook({ id: 'evt_1' } as never, {}, { secret })).toThrow(/raw body/);
  });

  it('never puts the secret or the expected signature in an error', () => {
    const body = envelope();
    const expected = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    const forged = { 'x-service-signature': `t=${now},v1=${'0'.repeat(64)}` };
    try {
      verifyWebhook(body, forged, { secret, now });
      expect.unreachable();
    } catch (error) {
      const text = `${String(error)} ${JSON.stringify(error)} ${(error as Error).stack}`;
      expect(text).not.toContain(secret);
      expect(text).not.toContain(expected);
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect((error as WebhookVerificationError).status).toBe(400);
    }
  });
});

describe('verifySignature', () => {
  it('returns the signed timestamp', () => {
    const body = 'abc';
    expect(verifySignature(body, signPayload(body, secret, { timestamp: now }), { secret, now })).toBe(now);
  });
});

describe('createTestDelivery', () => {
  it('builds a body and headers that verify, typed for its event type', () => {
    const d = createTestDelivery('message.failed', { secret, data: { to: '+4915112345678' }, attempt: 3 });
    const event = verifyWebhook(d.body, d.headers, { secret });
    expect(event).toEqual(d.event);
    expect(d.event.data.to).toBe('+4915112345678');
    expect(d.event.data.status).toBe('failed');
    expect(d.headers['x-service-delivery-attempt']).toBe('3');
    expect(d.headers['x-service-event-type']).toBe('message.failed');
    expect(d.event.id).toMatch(/^evt_[0-9a-f]{24}$/);
  });
});
