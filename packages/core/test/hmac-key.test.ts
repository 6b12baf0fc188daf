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

// Around the scratch buffer's first size and growth (1 KiB, 2 KiB, 4 KiB, …), the one-shot limit (64 KiB of
// body, plus the timestamp), and well past it.
const BODY_SIZES = [
  0,
  1,
  55,
  56,
  63,
  64,
  1024,
  2048,
  5000,
  64 * 1024,
  64 * 1024 + 15, // the largest one-shot body with a 10-digit timestamp
  64 * 1024 + 16,
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
      // Long then short then long, on one growing buffer: a short body must not see a long one's bytes.
      for (const size of [...BODY_SIZES, ...[...BODY_SIZES].reverse()]) {
        const b = body(size, size);
        expect(key.sign('1700000000', b)).toBe(reference(secret, '1700000000', b));
      }
    }
  });

  it('agrees for string bodies, multi-byte and lone surrogates included, and Uint8Array views', () => {
    const key = new HmacKey('whsec_test');
    const strings = ['', '{"a":1}', 'Grüße, ça va? 你好 👋', 'lone \ud800 surrogate', 'é'.repeat(9000)];
    for (const s of strings) {
      expect(key.sign('42', s)).toBe(reference('whsec_test', '42', s));
    }
    const padded = Buffer.concat([Buffer.from('xx'), body(3000, 7), Buffer.from('yy')]);
    const view = new Uint8Array(padded.buffer, padded.byteOffset + 2, 3000);
    expect(key.sign('42', view)).toBe(reference('whsec_test', '42', body(3000, 7)));
  });

  it('agrees for any timestamp text: leading zeros, 15 digits, and non-digits passed to computeSignature', () => {
    const key = new HmacKey('whsec_test');
    for (const t of ['0', '0001700000000', '999999999999999']) {
      expect(key.sign(t, '{}')).toBe(reference('whsec_test', t, '{}'));
    }
    for (const t of ['not-a-number', 'zeit→1', '9'.repeat(40)]) {
      expect(computeSignature(t, '{}', 'whsec_test').toString('hex')).toBe(reference('whsec_test', t, '{}'));
    }
  });

  it('signs as lower-case hex, the form the header carries', () => {
    expect(new HmacKey('whsec_test').sign('1', 'one')).toMatch(/^[0-9a-f]{64}$/);
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
