import { createHmac, timingSafeEqual } from 'node:crypto';
import { createTestDelivery, verifyWebhook } from '@sms-webhooks/core';
import Stripe from 'stripe';

const secret = 'whsec_test_secret_value';
const d = createTestDelivery('message.delivered', {
  secret,
  data: { metadata: { pad: 'x'.repeat(700) } } as never,
});
const body = Buffer.from(d.body);
const stripe = new Stripe('sk_test_x');
const sig = d.headers['x-service-signature']!;
const t = /t=(\d+)/.exec(sig)![1]!;
const v1 = sig.slice(sig.indexOf('v1=') + 3);
const fns: Record<string, () => unknown> = {
  ours: () => verifyWebhook(body, d.headers, { secret }),
  stripe: () => stripe.webhooks.constructEvent(body, sig, secret),
  floor: () => {
    const mac = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
    if (!timingSafeEqual(mac, Buffer.from(v1, 'hex'))) throw new Error('x');
    return JSON.parse(body.toString('utf8'));
  },
};
// pnpm tsx test/bench/lib/verify-count.ts <ours|stripe|floor> <N>, under valgrind --tool=callgrind (test/bench/README.md).
const fn = fns[process.argv[2]!]!;
const n = Number(process.argv[3]);
for (let i = 0; i < 3000; i++) fn();
for (let i = 0; i < n; i++) fn();
