import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundle } from './bundle.js';
import type { RunningApp } from './contract.js';
import { startWorker } from './workerd.js';

// createTestDeliveryAsync and signPayloadAsync inside workerd without nodejs_compat, from the Web build (the
// one the workerd condition resolves to): the Worker makes a delivery and its own webhook handler receives it.

const secret = 'whsec_workerd_testdelivery_0123456789';
let worker: RunningApp;

beforeAll(async () => {
  worker = await startWorker(await bundle('test-delivery-worker.ts', 'web'), [], {
    SMS_WEBHOOK_SECRET: secret,
  });
}, 180_000);

afterAll(() => worker?.stop());

it('workerd without nodejs_compat: a delivery made with createTestDeliveryAsync is received, once', async () => {
  const res = await worker.fetch('/');
  expect(res.status).toBe(200);
  const out = (await res.json()) as Record<string, unknown>;
  expect(out.hasNodeCrypto).toBe(false);
  expect(out.first).toEqual([200, { received: true }]);
  expect(out.handled).toBe(true);
  expect(out.again).toEqual([200, { received: true, duplicate: true }]);
  expect(out.forged).toEqual([400, 'signature_mismatch']);
  expect(out.badSecret).toBe('TypeError');
  expect(out.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  // The Web Crypto HMAC is the one node:crypto computes for the same input.
  const expected = createHmac('sha256', 'whsec_fixed_0123456789abcdef0123456')
    .update('1700000000.{"a":"é"}')
    .digest('hex');
  expect(out.fixed).toBe(`t=1700000000,v1=${expected}`);
});
