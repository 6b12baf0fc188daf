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
// Under valgrind on a loaded machine the counted calls can start more than 300 s after the delivery
// was signed: both timestamp checks get a tolerance of 10^6 s (the same comparison, never failing).
const tolerance = 1_000_000;
const fns: Record<string, () => unknown> = {
  ours: () => verifyWebhook(body, d.headers, { secret, tolerance }),
  stripe: () => stripe.webhooks.constructEvent(body, sig, secret, tolerance),
  floor: () => {
    const mac = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
    if (!timingSafeEqual(mac, Buffer.from(v1, 'hex'))) throw new Error('x');
    return JSON.parse(body.toString('utf8'));
  },
};
// Forked under valgrind --tool=callgrind by test/bench/verify-instructions.ts: `verify-count.ts <ours|stripe|floor>`.
// 3,000 calls to warm up, then 'warm'; on each { type: 'run', calls } (sent after the parent zeroed
// callgrind's counts) that many calls, then 'ran' (the parent dumps the counts); 'close' ends it.
const fn = fns[process.argv[2]!]!;
for (let i = 0; i < 3000; i++) fn();
// A timer keeps the event loop turning while the parent waits on callgrind_control, which callgrind
// answers between basic blocks, not inside a blocked epoll_wait.
const tick = setInterval(() => {}, 50);
process.on('message', (message: { type: string; calls?: number }) => {
  if (message.type === 'run') {
    for (let i = 0; i < message.calls!; i++) fn();
    process.send!({ type: 'ran' });
  } else if (message.type === 'close') {
    clearInterval(tick);
    process.disconnect();
  }
});
process.send!({ type: 'warm' });
