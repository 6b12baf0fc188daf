import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacKeyFor } from '../src/verify/hmac-key.js';
import { HmacKey } from '../src/verify/platform/node-hmac-key.js';
import { computeSignature } from '../src/verify/sign-payload.js';

/** What createHmac says, the reference for every case below. */
function reference(secret: string | Uint8Array, t: string, body: string | Uint8Array): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}

const SECRETS: (string | Uint8Array)[] = [
  'whsec_short',
  'k',
  'x'.repeat(64), // exactly one block: used as is
  'x'.repeat(65), // one byte over: hashed first
  `whsec_${'a'.repeat(200)}`,
  'whsec_grüße_秘密_🔑', // multi-byte UTF-8
  randomBytes(48),
];

// Around the one-shot limit (16 KiB of body, plus the timestamp), and well past it.
const BODY_SIZES = [
  0,
  1,
  55,
  56,
  63,
  64,
  1024,
  16 * 1024 - 12,
  16 * 1024 - 11,
  16 * 1024,
  16 * 1024 + 1,
  100_000,
];

function body(size: number, seed: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
}

describe('HmacKey', () => {
  it('agrees with createHmac for every secret and body size, short and long bodies interleaved', () => {
    for (const secret of SECRETS) {
      const key = new HmacKey(secret);
      // Long then short then long, on one shared buffer: a short body must not see a long one's bytes.
      for (const size of [...BODY_SIZES, ...[...BODY_SIZES].reverse()]) {
        const b = body(size, size);
        expect(key.sign('1700000000', b).toString('hex')).toBe(reference(secret, '1700000000', b));
      }
    }
  });

  it('agrees for string bodies, multi-byte and lone surrogates included, and Uint8Array views', () => {
    const key = new HmacKey('whsec_test');
    const strings = ['', '{"a":1}', 'Grüße, ça va? 你好 👋', 'lone \ud800 surrogate', 'é'.repeat(9000)];
    for (const s of strings) {
      expect(key.sign('42', s).toString('hex')).toBe(reference('whsec_test', '42', s));
    }
    const padded = Buffer.concat([Buffer.from('xx'), body(3000, 7), Buffer.from('yy')]);
    const view = new Uint8Array(padded.buffer, padded.byteOffset + 2, 3000);
    expect(key.sign('42', view).toString('hex')).toBe(reference('whsec_test', '42', body(3000, 7)));
  });

  it('agrees for any timestamp text: leading zeros, 15 digits, and non-digits passed to computeSignature', () => {
    const key = new HmacKey('whsec_test');
    for (const t of ['0', '0001700000000', '999999999999999']) {
      expect(key.sign(t, '{}').toString('hex')).toBe(reference('whsec_test', t, '{}'));
    }
    for (const t of ['not-a-number', 'zeit→1', '9'.repeat(40)]) {
      expect(computeSignature(t, '{}', 'whsec_test').toString('hex')).toBe(reference('whsec_test', t, '{}'));
    }
  });

  it('returns a fresh buffer each call, so an earlier signature is not overwritten', () => {
    const key = new HmacKey('whsec_test');
    const first = key.sign('1', 'one');
    const copy = Buffer.from(first);
    key.sign('2', 'two');
    expect(first.equals(copy)).toBe(true);
  });
});

describe('hmacKeyFor and computeSignature', () => {
  it('reuses the key for a secret it has seen and stays right past its bound of 16', () => {
    expect(hmacKeyFor('whsec_a')).toBe(hmacKeyFor('whsec_a'));
    for (let i = 0; i < 40; i++) {
      const secret = `whsec_${i}`;
      expect(computeSignature('7', 'body', secret).toString('hex')).toBe(reference(secret, '7', 'body'));
    }
  });

  it('accepts a KeyObject as before', () => {
    const key = createSecretKey(Buffer.from('whsec_ko'));
    expect(computeSignature('7', 'body', key).toString('hex')).toBe(reference('whsec_ko', '7', 'body'));
  });
});
