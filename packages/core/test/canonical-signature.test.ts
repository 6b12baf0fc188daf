import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchCanonical } from '../src/verify/canonical-signature.js';
import { hexDigestEquals } from '../src/verify/digest-match.js';
import { HmacKey } from '../src/verify/platform/node-hmac-key.js';
import { parseSignatureHeader } from '../src/verify/signature-header.js';
import { checkSignature, checkSignatureHeader } from '../src/verify/verify-signature.js';

const KEYS = [new HmacKey('whsec_old'), new HmacKey('whsec_new')];
const BODY = '{"id":"evt_1"}';
const NOW = 1_700_000_000;
const TOLERANCE = 300;

/** What the general path (full parse, then the check) answers: the timestamp or the error's code. */
function general(text: string): number | string {
  try {
    const header = parseSignatureHeader(text);
    checkSignature(BODY, header, KEYS, TOLERANCE, NOW);
    return header.timestamp;
  } catch (error) {
    return (error as { code: string }).code;
  }
}

/** What the canonical path answers: the timestamp, the error's code, or 'general' when it leaves it. */
function canonical(text: string): number | string {
  try {
    return matchCanonical(text, BODY, KEYS, TOLERANCE, NOW) ?? 'general';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe('the canonical path and the general path agree', () => {
  const timestamp = fc.oneof(
    fc.integer({ min: NOW - 400, max: NOW + 400 }).map(String),
    fc.stringMatching(/^\d{1,16}$/),
    fc.integer({ min: NOW - 10, max: NOW + 10 }).map((t) => `000${t}`),
  );
  // The right signature (from either key), in either case, or any 64 hex characters.
  const header = fc
    .tuple(timestamp, fc.nat(1), fc.boolean(), fc.boolean(), fc.stringMatching(/^[0-9a-f]{64}$/))
    .map(([t, key, right, upper, other]) => {
      const digest = right ? (KEYS[key]!.sign(t, BODY) as string) : other;
      return `t=${t},v1=${upper ? digest.toUpperCase() : digest}`;
    });
  // One or two characters changed anywhere, or anything at all.
  const near = fc.oneof(
    header,
    fc
      .tuple(header, fc.nat(90), fc.string({ maxLength: 2 }))
      .map(([text, at, s]) => text.slice(0, at) + s + text.slice(at + 1)),
    fc.string({ maxLength: 90 }),
  );

  it('on every header the canonical path decides, the general path answers the same', () => {
    const decided = { matched: 0, mismatched: 0 };
    fc.assert(
      fc.property(near, (text) => {
        const fast = canonical(text);
        if (fast === 'general') return;
        if (typeof fast === 'number') decided.matched++;
        else decided.mismatched++;
        expect(general(text)).toBe(fast);
      }),
      { numRuns: 5_000 },
    );
    // Both of its answers are exercised, not only its hand-off.
    expect(decided.matched).toBeGreaterThan(50);
    expect(decided.mismatched).toBeGreaterThan(50);
  });

  it('takes the exact header the service sends, with either secret of a rotation', () => {
    for (const key of KEYS) {
      const text = `t=${NOW},v1=${key.sign(String(NOW), BODY)}`;
      expect(canonical(text)).toBe(NOW);
      expect(checkSignatureHeader(text, BODY, KEYS, TOLERANCE, NOW)).toBe(NOW);
    }
  });

  it('leaves upper-case hex, stale timestamps and every other form to the general path', () => {
    const digest = KEYS[0]!.sign(String(NOW), BODY) as string;
    const stale = String(NOW - 301);
    for (const text of [
      `t=${NOW},v1=${digest.toUpperCase()}`,
      `t=${stale},v1=${KEYS[0]!.sign(stale, BODY)}`,
      `t=${NOW}, v1=${digest}`,
      `v1=${digest},t=${NOW}`,
      `t=${NOW},v1=${digest},v1=${digest}`,
      `t=${NOW},v1=${'g'.repeat(64)}`,
    ]) {
      expect(canonical(text)).toBe('general');
    }
    // and the general path still accepts the upper-case one and tells the others apart
    expect(checkSignatureHeader(`t=${NOW},v1=${digest.toUpperCase()}`, BODY, KEYS, TOLERANCE, NOW)).toBe(NOW);
    expect(general(`t=${stale},v1=${KEYS[0]!.sign(stale, BODY)}`)).toBe('timestamp_out_of_tolerance');
    expect(general(`t=${NOW},v1=${'g'.repeat(64)}`)).toBe('signature_malformed');
  });

  it('answers a well-formed canonical header signed with another secret as a mismatch itself', () => {
    const text = `t=${NOW},v1=${new HmacKey('whsec_other').sign(String(NOW), BODY)}`;
    expect(canonical(text)).toBe('signature_mismatch');
  });
});

describe('hexDigestEquals', () => {
  const digest = 'ab'.repeat(32);

  it('compares all 64 characters: equal, one character off at either end or in the middle', () => {
    expect(hexDigestEquals(digest, digest)).toBe(true);
    for (const i of [0, 1, 2, 3, 31, 62, 63]) {
      const other = digest.slice(0, i) + (digest[i] === 'a' ? 'c' : 'a') + digest.slice(i + 1);
      expect(hexDigestEquals(digest, other)).toBe(false);
    }
  });

  it('reads the header in place from an offset, and refuses anything shorter than 64 characters', () => {
    expect(hexDigestEquals(digest, `t=1,v1=${digest}`, 7)).toBe(true);
    expect(hexDigestEquals(digest, `t=1,v1=${digest.slice(0, 63)}`, 7)).toBe(false);
    expect(hexDigestEquals(digest.slice(1), digest.slice(1))).toBe(false);
    expect(hexDigestEquals(digest, '')).toBe(false);
  });
});
