import {
  createReceiver,
  createTestDelivery,
  MemoryStore,
  type WebhookHandlerError,
} from '@sms-webhooks/core';
import { VirtualClock } from '@sms-webhooks/core/testing';
import { describe, expect, it } from 'vitest';
import { captureLogger, secret } from './helpers.js';

/** A receiver on a virtual clock whose message.delivered handler fails its first `failures` runs. */
function flaky(failures: number, options: Parameters<typeof createReceiver>[0] | object = {}) {
  const clock = new VirtualClock();
  const store = new MemoryStore({ now: () => clock.now() });
  const receiver = createReceiver({ secret, clock, store, logger: captureLogger(), ...options });
  const runs: number[] = [];
  const errors: WebhookHandlerError[] = [];
  receiver.onError((e) => {
    errors.push(e);
  });
  receiver.on('message.delivered', () => {
    runs.push(clock.now());
    if (runs.length <= failures) throw new Error(`blip ${runs.length}`);
  });
  const d = createTestDelivery('message.delivered', { secret });
  const deliver = () => receiver.handle({ rawBody: d.body, headers: d.headers });
  return { clock, store, receiver, runs, errors, deliver, d };
}

describe('retry: a failed run after the 200 is run again here', () => {
  it('by default 3 runs in all, 1 s and then 2 s apart, then onError once', async () => {
    const { clock, runs, errors, deliver } = flaky(5);
    const start = clock.now();
    expect((await deliver()).json).toEqual({ received: true });
    await clock.advance('10s');
    expect(runs.map((t) => t - start)).toEqual([0, 1000, 3000]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain('blip 3');
  });

  it('a run that succeeds on retry completes the record: a redelivery is a duplicate, onError never called', async () => {
    const { clock, runs, errors, deliver } = flaky(1);
    await deliver();
    await clock.advance('5s');
    expect(runs).toHaveLength(2);
    expect(errors).toEqual([]);
    expect((await deliver()).json).toEqual({ received: true, duplicate: true });
  });

  it('while it waits to retry, the event stays claimed: a redelivery is 409 in_flight, not a second run', async () => {
    const { clock, runs, deliver } = flaky(1, { leaseMs: 600 });
    await deliver();
    await clock.advance(100);
    expect(runs).toHaveLength(1);
    // Past the 600 ms lease: only renewal keeps the claim during the 1 s wait.
    await clock.advance(800);
    const again = await deliver();
    expect(again.status).toBe(409);
    await clock.advance('2s');
    expect(runs).toHaveLength(2);
    expect((await deliver()).json).toEqual({ received: true, duplicate: true });
  });

  it('attempts and backoffMs set the schedule; a list gives each wait', async () => {
    const a = flaky(9, { retry: { attempts: 4, backoffMs: 100 } });
    const startA = a.clock.now();
    await a.deliver();
    await a.clock.advance('5s');
    expect(a.runs.map((t) => t - startA)).toEqual([0, 100, 300, 700]);
    const b = flaky(9, { retry: { attempts: 3, backoffMs: [50, 5000] } });
    const startB = b.clock.now();
    await b.deliver();
    await b.clock.advance('10s');
    expect(b.runs.map((t) => t - startB)).toEqual([0, 50, 5050]);
  });

  it('retry: false runs once; respond after-handlers never retries here (the service does)', async () => {
    const off = flaky(9, { retry: false });
    await off.deliver();
    await off.clock.advance('10s');
    expect(off.runs).toHaveLength(1);
    expect(off.errors).toHaveLength(1);
    const after = flaky(9, { respond: 'after-handlers' });
    expect((await after.deliver()).status).toBe(500);
    await after.clock.advance('10s');
    expect(after.runs).toHaveLength(1);
  });

  it('drain and close run the waiting retries at once instead of leaving them behind', async () => {
    const { clock, receiver, runs, deliver } = flaky(1);
    await deliver();
    await clock.advance(10);
    expect(runs).toHaveLength(1);
    const drained = await receiver.drain();
    expect(drained.unfinished).toEqual([]);
    expect(runs).toHaveLength(2);
    expect(clock.now() - runs[0]!).toBeLessThan(1000);
  });

  it('bad retry options fail at start-up, saying what they must be', () => {
    expect(() => createReceiver({ secret, retry: { attempts: 0 } })).toThrow(
      /`retry.attempts` must be a positive integer, got 0/,
    );
    expect(() => createReceiver({ secret, retry: { backoffMs: '1s' as never } })).toThrow(
      /`retry.backoffMs` must be a positive number, got the string "1s"/,
    );
    expect(() => createReceiver({ secret, retry: true as never })).toThrow(/`retry` must be false or/);
  });
});
