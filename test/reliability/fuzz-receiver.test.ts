import { type AnyWebhookEvent, createReceiver } from '@sms-webhooks/core';
import { captureLogger } from '@sms-webhooks/test-helpers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bodyArb,
  bodyBytes,
  expectedSignature,
  headerSetArb,
  secretArb,
  signedDeliveryArb,
  TOLERANCE,
  tamperedArb,
} from './helpers/arbitraries.js';
import { report, scaled } from './helpers/scale.js';

const REFUSAL_CODES = new Set([
  'signature_missing',
  'signature_malformed',
  'timestamp_out_of_tolerance',
  'signature_mismatch',
  'payload_invalid',
  'header_mismatch',
  'payload_too_large',
]);

const RUNS = scaled(1_500, 15_000);
// Each `it` runs its whole property; at soak scale that is minutes on 2 shared cores, far past the
// suite's 20 s default, so the time-out grows with the case count.
const TIMEOUT_MS = scaled(20_000, 600_000);
const nowSeconds = () => Math.floor(Date.now() / 1000);
// The receiver reads the real clock: keep valid timestamps well inside the window and tampered ones well outside.
const MARGIN = 30;

function setup(secret: string | string[]) {
  const logger = captureLogger();
  const handled: AnyWebhookEvent[] = [];
  const receiver = createReceiver({ secret, tolerance: TOLERANCE, logger, maxBodyBytes: 64 * 1024 });
  receiver.onAny((event) => {
    handled.push(event);
  });
  return { receiver, logger, handled };
}

/** Neither a secret nor a full signature the receiver computed may show up anywhere it writes. */
function expectNoSecretIn(texts: string[], secrets: string[], signatures: string[]): void {
  for (const text of texts) {
    for (const s of secrets) expect(text.includes(s), 'secret leaked').toBe(false);
    for (const s of signatures)
      expect(text.toLowerCase().includes(s), 'expected signature leaked').toBe(false);
  }
}

describe('fuzz: receiver.handle', () => {
  it(
    `answers generated header sets and bodies with a coded 4xx, never a handler call or a rejection (${RUNS} cases)`,
    async () => {
      const started = performance.now();
      await fc.assert(
        fc.asyncProperty(headerSetArb, bodyArb, secretArb, async (headers, body, secret) => {
          const { receiver, logger, handled } = setup(secret);
          const res = await receiver.handle({ rawBody: body, headers });
          await receiver.drain();
          expect([400, 413]).toContain(res.status);
          expect(REFUSAL_CODES.has(JSON.parse(res.body).error.code)).toBe(true);
          expect(handled).toHaveLength(0);
          expectNoSecretIn([res.body, logger.text()], [secret], []);
        }),
        { numRuns: RUNS },
      );
      report('fuzz receiver random', { cases: RUNS, ms: Math.round(performance.now() - started) });
    },
    TIMEOUT_MS,
  );

  it(
    `accepts every correctly signed delivery and runs its handler exactly once (${RUNS} cases)`,
    async () => {
      const started = performance.now();
      await fc.assert(
        fc.asyncProperty(
          fc.constant(null).chain(() => signedDeliveryArb(nowSeconds(), TOLERANCE - MARGIN)),
          async (d) => {
            const { receiver, handled } = setup(d.secrets);
            const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
            await receiver.drain();
            expect(res.status).toBe(200);
            expect(JSON.parse(res.body)).toEqual({ received: true });
            expect(handled).toEqual([JSON.parse(d.text)]);
          },
        ),
        { numRuns: RUNS },
      );
      report('fuzz receiver signed', { cases: RUNS, ms: Math.round(performance.now() - started) });
    },
    TIMEOUT_MS,
  );

  it(
    `refuses every tampered delivery with its exact code, echoing no secret or expected signature (${RUNS} cases)`,
    async () => {
      const started = performance.now();
      await fc.assert(
        fc.asyncProperty(
          fc.constant(null).chain(() => tamperedArb(nowSeconds(), TOLERANCE - MARGIN, 2 * MARGIN)),
          async (d) => {
            const { receiver, logger, handled } = setup(d.secrets);
            const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
            await receiver.drain();
            expect({ kind: d.kind, status: res.status, code: JSON.parse(res.body).error?.code }).toEqual({
              kind: d.kind,
              status: 400,
              code: d.expected,
            });
            expect(handled).toHaveLength(0);
            const bytes = bodyBytes(d.body);
            expectNoSecretIn(
              [res.body, logger.text()],
              d.secrets,
              d.secrets.map((s) => expectedSignature(s, d.t, bytes)),
            );
          },
        ),
        { numRuns: RUNS },
      );
      report('fuzz receiver tampered', { cases: RUNS, ms: Math.round(performance.now() - started) });
    },
    TIMEOUT_MS,
  );
});
