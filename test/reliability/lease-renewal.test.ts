/**
 * A handler that runs longer than `leaseMs` keeps its claim: the receiver renews it every third of the
 * lease while handlers run, so a redelivery meanwhile is told 409 `in_flight` instead of running the
 * event a second time, at the same time. (Without renewal, a redelivery past the lease claimed the event
 * again.) Two instances on one Redis: packages/redis/test/lease-expiry.test.ts. kill -9
 * mid-handler is in faults.test.ts: there nothing renews, the lease runs out, and the redelivery runs the
 * event once.
 */
import { createReceiver, createTestDelivery, MemoryStore } from '@sms-webhooks/core';
import { deferred, sleep } from '@sms-webhooks/test-helpers';
import { expect, it } from 'vitest';

const secret = 'whsec_leaserenewal0123456789abcdefgh';
// Renewed every third of it (667 ms), a 2 s lease outlives an event loop held up for a second on a
// loaded machine; the handler runs 2.5 leases, however long the redeliveries meanwhile take.
const LEASE_MS = 2_000;
const STEP_MS = 500;
/** Redeliveries every STEP_MS for 2.5 leases from `startedAt`; returns the statuses, in order. */
async function redeliverFor(startedAt: number, send: (attempt: number) => Promise<number>) {
  const statuses: number[] = [];
  for (let attempt = 2; Date.now() - startedAt < 2.5 * LEASE_MS; attempt++) {
    await sleep(STEP_MS);
    statuses.push(await send(Math.min(attempt, 6)));
  }
  return statuses;
}

it('MemoryStore: redeliveries during a handler that runs 2.5 leases are all 409; the handler runs once', async () => {
  const receiver = createReceiver({
    secret,
    store: new MemoryStore(),
    leaseMs: LEASE_MS,
    respond: 'after-handlers',
    logger: { warn() {}, error() {} },
  });
  let runs = 0;
  const finished = deferred();
  // The first run lasts until the redeliveries are done; a second run (the defect) returns at once.
  receiver.on('message.delivered', async () => {
    if (++runs === 1) await finished.promise;
  });
  const d = createTestDelivery('message.delivered', { secret });
  const startedAt = Date.now();
  const first = receiver.handle({ rawBody: d.body, headers: d.headers });
  const statuses = await redeliverFor(startedAt, async (attempt) => {
    const res = await receiver.handle({
      rawBody: d.body,
      headers: { ...d.headers, 'x-service-delivery-attempt': String(attempt) },
    });
    return res.status;
  });
  finished.resolve();
  expect((await first).status).toBe(200);
  expect(statuses.length).toBeGreaterThanOrEqual(4);
  expect(new Set(statuses)).toEqual(new Set([409]));
  expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).body).toBe(
    '{"received":true,"duplicate":true}',
  );
  expect(runs).toBe(1);
}, 30_000);
