/**
 * Unauthenticated requests cannot drive the log volume: over HTTP, every refusal the Node entry or the
 * receiver answers (405, 413, 400) reaches `onRefused`, and the log gets one line per code, then one
 * summary per code.
 */
import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { VirtualClock } from '@sms-webhooks/core/testing';
import { FRAMEWORKS, startApp } from './helpers/framework-apps.js';

const secret = 'whsec_refusallog0123456789abcdefghij';

for (const [name, build] of FRAMEWORKS.filter(([n]) => /express 5|fastify 5|koa 3/.test(n))) {
  it(`${name}: 1,200 bad requests, one log line per code, every one counted`, async () => {
    const lines: string[] = [];
    const keep = (...a: unknown[]) => void lines.push(a.map(String).join(' '));
    // On a clock of its own: however long the 1,200 requests take on a busy machine, no 10 s summary
    // falls due before the end, when the test moves the clock on to see one line per code.
    const clock = new VirtualClock();
    const receiver = createReceiver({
      secret,
      clock,
      maxBodyBytes: 1024,
      logger: { warn: keep, error: keep },
    });
    const counts: Record<string, number> = {};
    receiver.onRefused(({ status, code }) => {
      counts[`${status} ${code}`] = (counts[`${status} ${code}`] ?? 0) + 1;
    });
    const app = await startApp(build, receiver);
    const url = `${app.origin}/webhooks`;
    const forged = createTestDelivery('message.sent', { secret: 'whsec_someoneelse' });
    const requests = [
      () => fetch(url, { method: 'POST', headers: forged.headers, body: forged.body }),
      () => fetch(url, { method: 'GET' }),
      () => fetch(url, { method: 'POST', body: 'x'.repeat(2048) }),
    ];
    try {
      for (let i = 0; i < 1_200; i += 20) {
        await Promise.all(
          Array.from({ length: 20 }, async (_, j) => {
            const res = await requests[(i + j) % 3]!();
            await res.arrayBuffer();
          }),
        );
      }
      expect(counts).toEqual({
        '400 signature_mismatch': 400,
        '405 method_not_allowed': 400,
        '413 payload_too_large': 400,
      });
      expect(lines).toHaveLength(3);
      await clock.advance('10s');
      expect(lines.slice(3).sort()).toEqual([
        'sms-webhooks: 399 more method_not_allowed refusals in the last 10 s (first one logged in full)',
        'sms-webhooks: 399 more payload_too_large refusals in the last 10 s (first one logged in full)',
        'sms-webhooks: 399 more signature_mismatch refusals in the last 10 s (first one logged in full)',
      ]);
    } finally {
      await app.close();
    }
  });
}
