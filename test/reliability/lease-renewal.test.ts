/**
 * A handler that runs longer than `leaseMs` keeps its claim: the receiver renews it every third of the
 * lease while handlers run, so a redelivery meanwhile is told 409 `in_flight` instead of running the
 * event a second time, at the same time. (Without renewal, the redelivery 1.5 s into a 2.5 s handler
 * claimed the event again.) Two instances on one Redis: test/redis/lease-expiry.test.ts. kill -9
 * mid-handler is in faults.test.ts: there nothing renews, the lease runs out, and the redelivery runs the
 * event once.
 */
import { createReceiver, createTestDelivery, MemoryStore } from '@sms-webhooks/core';
import { expect, it } from 'vitest';
import { sleep } from '../helpers/index.js';

const secret = 'whsec_leaserenewal0123456789abcdefgh';
const LEASE_MS = 1_000;
const HANDLER_MS = 2_500;
const STEP_MS = 500;
/** Redeliveries every STEP_MS until `first` settles; returns the statuses, in order. */
async function redeliverWhile(first: Promise<unknown>, send: (attempt: number) => Promise<number>) {
  let done = false;
  void first.finally(() => {
    done = true;
  });
  const statuses: number[] = [];
  for (let attempt = 2; !done; attempt++) {
    await sleep(STEP_MS);
    if (!done) statuses.push(await send(Math.min(attempt, 6)));
  }
  return statuses;
}

it('MemoryStore: redeliveries during a 2.5 s handler with a 1 s lease are all 409; the handler runs once', async () => {
  const receiver = createReceiver({
    secret,
    store: new MemoryStore(),
    leaseMs: LEASE_MS,
    respond: 'after-handlers',
    logger: { warn() {}, error() {} },
  });
  let runs = 0;
  receiver.on('message.delivered', async () => {
    runs++;
    await sleep(HANDLER_MS);
  });
  const d = createTestDelivery('message.delivered', { secret });
  const first = receiver.handle({ rawBody: d.body, headers: d.headers });
  const statuses = await redeliverWhile(first, async (attempt) => {
    const res = await receiver.handle({
      rawBody: d.body,
      headers: { ...d.headers, 'x-service-delivery-attempt': String(attempt) },
    });
    return res.status;
  });
  expect((await first).status).toBe(200);
  expect(statuses.length).toBeGreaterThanOrEqual(3);
  expect(new Set(statuses)).toEqual(new Set([409]));
  expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).body).toBe(
    '{"received":true,"duplicate":true}',
  );
  expect(runs).toBe(1);
});
