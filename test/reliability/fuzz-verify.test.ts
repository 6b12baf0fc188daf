import { isWebhookVerificationError, verifyWebhook } from '@sms-webhooks/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bodyArb,
  headerSetArb,
  NOW,
  secretArb,
  signedDeliveryArb,
  TOLERANCE,
  tamperedArb,
} from './helpers/arbitraries.js';
import { report, scaled } from './helpers/scale.js';

const CODES = new Set([
  'signature_missing',
  'signature_malformed',
  'timestamp_out_of_tolerance',
  'signature_mismatch',
  'payload_invalid',
  'header_mismatch',
]);

/** 'accepted', or the verifier's own code; anything else it throws fails the property. */
function outcome(run: () => unknown): string {
  try {
    run();
    return 'accepted';
  } catch (error) {
    if (!isWebhookVerificationError(error)) throw error;
    if (!CODES.has(error.code)) throw new Error(`unknown code ${error.code}`);
    return error.code;
  }
}

// CI: 4,000 + 3,000 + 3,000 = 10,000 cases; soak: 100,000.
const RANDOM_RUNS = scaled(4_000, 40_000);
const SIGNED_RUNS = scaled(3_000, 30_000);
const TAMPERED_RUNS = scaled(3_000, 30_000);
// Each `it` runs its whole property; at soak scale that is minutes on 2 shared cores, far past the
// suite's 20 s default, so the time-out grows with the case count.
const TIMEOUT_MS = scaled(20_000, 600_000);

describe('fuzz: verifyWebhook', () => {
  it(
    `never accepts generated header sets and bodies, and throws only its own coded errors (${RANDOM_RUNS} cases)`,
    () => {
      const started = performance.now();
      const codes = new Map<string, number>();
      fc.assert(
        fc.property(headerSetArb, bodyArb, secretArb, (headers, body, secret) => {
          const code = outcome(() => verifyWebhook(body, headers, { secret, now: NOW }));
          codes.set(code, (codes.get(code) ?? 0) + 1);
          expect(code).not.toBe('accepted');
        }),
        { numRuns: RANDOM_RUNS },
      );
      report('fuzz random headers and bodies', {
        cases: RANDOM_RUNS,
        ms: Math.round(performance.now() - started),
        ...Object.fromEntries(codes),
      });
      // The generators must reach past the header parser, or the property proves little.
      expect(codes.get('signature_malformed')).toBeGreaterThan(0);
      expect(
        (codes.get('signature_mismatch') ?? 0) + (codes.get('timestamp_out_of_tolerance') ?? 0),
      ).toBeGreaterThan(0);
    },
    TIMEOUT_MS,
  );

  it(
    `accepts every correctly signed delivery, however it is spaced, typed, cased or split (${SIGNED_RUNS} cases)`,
    () => {
      const started = performance.now();
      fc.assert(
        fc.property(signedDeliveryArb(NOW, TOLERANCE), (d) => {
          const event = verifyWebhook(d.body, d.headers, {
            secret: d.secrets,
            tolerance: TOLERANCE,
            now: NOW,
          });
          expect(event).toEqual(JSON.parse(d.text));
        }),
        { numRuns: SIGNED_RUNS },
      );
      report('fuzz correctly signed', { cases: SIGNED_RUNS, ms: Math.round(performance.now() - started) });
    },
    TIMEOUT_MS,
  );

  it(
    `refuses every tampered body, timestamp, signature, secret or header with its exact code (${TAMPERED_RUNS} cases)`,
    () => {
      const started = performance.now();
      const kinds = new Map<string, number>();
      fc.assert(
        fc.property(tamperedArb(NOW, TOLERANCE, 1), (d) => {
          kinds.set(d.kind, (kinds.get(d.kind) ?? 0) + 1);
          const code = outcome(() =>
            verifyWebhook(d.body, d.headers, { secret: d.secrets, tolerance: TOLERANCE, now: NOW }),
          );
          expect({ kind: d.kind, code }).toEqual({ kind: d.kind, code: d.expected });
        }),
        { numRuns: TAMPERED_RUNS },
      );
      report('fuzz tampered', {
        cases: TAMPERED_RUNS,
        ms: Math.round(performance.now() - started),
        kinds: kinds.size,
      });
      expect(kinds.size).toBe(16);
    },
    TIMEOUT_MS,
  );
});
