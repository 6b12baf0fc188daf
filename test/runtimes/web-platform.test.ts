import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { platform as node } from '../../packages/core/src/base/platform/node.js';
import { platform as web } from '../../packages/core/src/base/platform/web.js';

// The Web build's primitives against the Node build's, in Node (which has Web Crypto too): both builds
// must agree on every input, or a delivery verified on one would be refused on the other.

const SECRETS: string[] = [
  'whsec_short',
  'x'.repeat(64),
  'x'.repeat(65), // longer than a block: Web Crypto hashes it first, as RFC 2104 says
  'whsec_grüße_秘密_🔑',
];
const BODIES: (string | Uint8Array)[] = [
  '',
  '{"a":1}',
  'Grüße, ça va? 你好 👋',
  'lone \ud800 surrogate',
  randomBytes(100_000),
  new Uint8Array(randomBytes(64).buffer, 8, 40), // a view into a larger buffer
];

describe('the Web platform (Web Crypto, Uint8Array)', () => {
  it('signs as createHmac does (lower-case hex), for every secret and body, asynchronously', async () => {
    for (const secret of SECRETS) {
      for (const body of BODIES) {
        const digest = web.sign(secret, '1700000000', body);
        expect(digest).toBeInstanceOf(Promise);
        const expected = createHmac('sha256', secret).update('1700000000.').update(body).digest('hex');
        expect(await digest).toBe(expected);
        expect(node.signSync?.(secret, '1700000000', body)).toBe(expected);
        expect(await node.sign(secret, '1700000000', body)).toBe(expected);
      }
    }
  });

  it('compares digests as Node does: equal only when every character is', () => {
    const a = 'a'.repeat(64);
    for (const b of [a, `${'a'.repeat(63)}b`, `b${'a'.repeat(63)}`, 'a'.repeat(63), '']) {
      expect(web.sameDigest(a, b)).toBe(a === b);
      expect(node.sameDigest(a, b)).toBe(a === b);
    }
  });

  it('counts UTF-8 bytes and decodes strictly as Node does', () => {
    for (const text of [
      '',
      'abc',
      'é',
      '€',
      '😀',
      'lone \ud800 surrogate',
      '\udc00\ud800',
      'x'.repeat(1000),
    ]) {
      expect(web.utf8ByteLength(text)).toBe(Buffer.byteLength(text, 'utf8'));
    }
    const bytes = new TextEncoder().encode('Grüße 👋');
    expect(web.decodeUtf8(bytes)).toBe(node.decodeUtf8(bytes));
    const invalid = new Uint8Array([0x7b, 0xff, 0x7d]);
    expect(() => web.decodeUtf8(invalid)).toThrow(TypeError);
    expect(() => node.decodeUtf8(invalid)).toThrow(TypeError);
  });

  it('draws random hex of the asked length, and has no synchronous HMAC', () => {
    expect(web.randomHex(16)).toMatch(/^[0-9a-f]{32}$/);
    expect(web.randomHex(16)).not.toBe(web.randomHex(16));
    expect(web.signSync).toBeUndefined();
    expect(node.signSync).toBeTypeOf('function');
  });
});
