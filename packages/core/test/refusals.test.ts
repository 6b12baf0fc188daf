import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import type { Refusal } from '@sms-webhooks/core/instrumentation';
import { VirtualClock } from '@sms-webhooks/core/testing';
import { SampledLog } from '../src/receiver/sampled-log.js';
import { captureLogger, secret } from './helpers.js';

describe('refusals: counted by hooks, sampled in the log', () => {
  it('10,000 bad requests write one log line per code; onRefused sees all 10,000', async () => {
    const logger = captureLogger();
    const receiver = createReceiver({ secret, logger });
    const seen = new Map<string, number>();
    receiver.onRefused(
      (r: Refusal) => void seen.set(`${r.status} ${r.code}`, (seen.get(`${r.status} ${r.code}`) ?? 0) + 1),
    );
    const d = createTestDelivery('message.sent', { secret });
    const forged = createTestDelivery('message.sent', { secret: 'whsec_someoneelse' });
    const stale = createTestDelivery('message.sent', {
      secret,
      timestamp: Math.floor(Date.now() / 1000) - 3600,
    });
    const { 'x-service-signature': _, ...unsigned } = d.headers;
    const kinds = [
      { rawBody: forged.body, headers: forged.headers },
      { rawBody: stale.body, headers: stale.headers },
      { rawBody: d.body, headers: unsigned },
      { rawBody: d.body.replace('message.sent', 'message.sent '), headers: d.headers },
    ];
    for (let i = 0; i < 10_000; i++) await receiver.handle(kinds[i % kinds.length]!);

    expect([...seen.values()].reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(Object.fromEntries(seen)).toEqual({
      '400 signature_mismatch': 5_000,
      '400 timestamp_out_of_tolerance': 2_500,
      '400 signature_missing': 2_500,
    });
    expect(logger.lines).toHaveLength(3);
    expect(logger.text()).not.toContain(secret);
    // The clock-skew line says by how much and which way, for whoever fixes the server's clock.
    expect(logger.text()).toMatch(
      /timestamp is 3600 seconds behind the receiver's clock \(tolerance 300 s\)/,
    );
  });

  it('a hook that throws is logged and the answer stands', async () => {
    const logger = captureLogger();
    const receiver = createReceiver({ secret, logger });
    receiver.onRefused(() => {
      throw new Error('metrics down');
    });
    const forged = createTestDelivery('message.sent', { secret: 'whsec_someoneelse' });
    const res = await receiver.handle({ rawBody: forged.body, headers: forged.headers });
    expect(res.status).toBe(400);
    expect(logger.text()).toContain('an onRefused hook failed: Error: metrics down');
  });

  it('SampledLog: the first line in full, then one summary per kind per interval, then quiet', async () => {
    const logger = captureLogger();
    const clock = new VirtualClock();
    const log = new SampledLog(logger, clock, 40_000);
    for (let i = 0; i < 500; i++)
      log.warn('signature_mismatch refusals', () => 'delivery refused (signature_mismatch)');
    log.warn('payload_invalid refusals', () => 'delivery refused (payload_invalid)');
    expect(logger.lines).toEqual([
      'warn sms-webhooks: delivery refused (signature_mismatch)',
      'warn sms-webhooks: delivery refused (payload_invalid)',
    ]);
    await clock.advance(39_999);
    expect(logger.lines).toHaveLength(2);
    await clock.advance(1);
    expect(logger.lines.slice(2)).toEqual([
      'warn sms-webhooks: 499 more signature_mismatch refusals in the last 40 s (first one logged in full)',
    ]);
    await clock.advance(120_000);
    expect(logger.lines).toHaveLength(3);
  });

  it('SampledLog: after a whole interval without one, a kind is logged in full again, with its own reason', async () => {
    const logger = captureLogger();
    const clock = new VirtualClock();
    const log = new SampledLog(logger, clock, 40_000);
    for (const reason of ['ECONNREFUSED', 'ECONNREFUSED'])
      log.warn('secret_unavailable refusals', () => `refused: ${reason}`);
    await clock.advance(250_000);
    log.warn('secret_unavailable refusals', () => 'refused: timed out');
    expect(logger.lines).toEqual([
      'warn sms-webhooks: refused: ECONNREFUSED',
      'warn sms-webhooks: 1 more secret_unavailable refusals in the last 40 s (first one logged in full)',
      'warn sms-webhooks: refused: timed out',
    ]);
  });
});

describe('registration and ignored events', () => {
  it('warns at on() for a type that is not a known event type, naming the closest one', () => {
    const logger = captureLogger();
    const receiver = createReceiver({ secret, logger });
    receiver.on('message.delivred' as 'message.delivered', () => {});
    receiver.on('message.delivered', () => {});
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toContain(
      `on("message.delivred") is not a known event type; did you mean 'message.delivered'?`,
    );
  });

  it('logs an ignored event once per type, saying which types have handlers', async () => {
    const logger = captureLogger();
    const receiver = createReceiver({ secret, logger });
    receiver.on('message.failed', () => {});
    for (let i = 0; i < 3; i++) {
      const d = createTestDelivery('message.delivered', { secret });
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).body).toBe(
        '{"received":true,"ignored":true}',
      );
    }
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatch(
      /\(message\.delivered\) acknowledged as ignored: no handler for this type\. Handlers are registered for: message\.failed\./,
    );
  });
});
