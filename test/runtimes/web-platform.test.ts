import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { platform as node } from '../../packages/core/src/verify/platform/node.js';
import { platform as web } from '../../packages/core/src/verify/platform/web.js';

// The Web build's primitives against the Node build's, in Node (which has Web Crypto too): both builds
// must agree on every input, or a delivery verified on one would be refused on the other.

const SECRETS: (string | Uint8Array)[] = [
  'whsec_short',
  'x'.repeat(64),
  'x'.repeat(65), // longer than a block: Web Crypto hashes it first, as RFC 2104 says
  'whsec_grüße_秘密_🔑',
  randomBytes(48),
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
      const key = new web.HmacKey(secret);
      for (const body of BODIES) {
        const digest = key.sign('1700000000', body);
        expect(digest).toBeInstanceOf(Promise);
        const expected = createHmac('sha256', secret).update('1700000000.').update(body).digest('hex');
        expect(await digest).toBe(expected);
      }
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
    expect(web.syncHmac).toBe(false);
    expect(node.syncHmac).toBe(true);
  });
});
