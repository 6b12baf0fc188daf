import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkTimestamp, matchSignature, parseSignatureHeader } from '../src/verify/verify-signature.js';

// The pure half of verification: a parsed header against expected digests and a given clock. No HMAC, no
// Date.now: what the receiver, verifyWebhook and verifySignature all decide with.

const digest = (secret: string) => createHmac('sha256', secret).update('1700000000.{}').digest('hex');
const [a, b, c] = [digest('whsec_a'), digest('whsec_b'), digest('whsec_c')];

function codeOf(run: () => void): string {
  try {
    run();
    return 'ok';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe('matchSignature', () => {
  it('answers the index of the expected digest the header carries, among several v1 values', () => {
    const header = parseSignatureHeader(`t=1700000000,v1=${c},v1=${b.toUpperCase()}`);
    expect(matchSignature(header, [a, b])).toBe(1);
    expect(matchSignature(header, [c, b])).toBe(0);
    expect(matchSignature(header, [b, c])).toBe(0);
  });

  it('answers -1 when no expected digest is carried, or there is none', () => {
    const header = parseSignatureHeader(`t=1700000000,v1=${a}`);
    expect(matchSignature(header, [b, c])).toBe(-1);
    expect(matchSignature(header, [])).toBe(-1);
    expect(matchSignature(header, [a.slice(0, 63)])).toBe(-1);
  });
});

describe('checkTimestamp', () => {
  const header = parseSignatureHeader(`t=1700000000,v1=${a}`);

  it('accepts up to the tolerance either way, and refuses one second past it', () => {
    expect(codeOf(() => checkTimestamp(header, 300, 1700000000 + 300))).toBe('ok');
    expect(codeOf(() => checkTimestamp(header, 300, 1700000000 - 300))).toBe('ok');
    expect(codeOf(() => checkTimestamp(header, 300, 1700000000 + 301))).toBe('timestamp_out_of_tolerance');
    expect(codeOf(() => checkTimestamp(header, 300, 1700000000 - 301))).toBe('timestamp_out_of_tolerance');
  });

  it('says by how much and which way', () => {
    expect(() => checkTimestamp(header, 300, 1700000000 - 400)).toThrow(/400 seconds ahead of/);
    expect(() => checkTimestamp(header, 300, 1700000000 + 400)).toThrow(/400 seconds behind/);
  });
});
