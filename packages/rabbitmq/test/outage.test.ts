import { createTestDelivery, MemoryStore } from '@sms-webhooks/core';
import { createWorker } from '@sms-webhooks/rabbitmq';
import { describe, expect, it } from 'vitest';
import { captureLogger, handOffReceiver, queueName, secret, sleep, useBroker, waitFor } from './set-up.js';
import { startProxy } from './tcp-proxy.js';

const broker = useBroker();

// The outage is a TCP proxy between these clients and the shared broker that cuts every connection and
// refuses new ones for a while: the broker keeps running for everything else on the machine.
describe('a broker outage mid-load', () => {
  it('loses nothing answered 200, answers 503 while down, and runs every event once after the reconnect', {
    timeout: 60_000,
  }, async () => {
    const queue = broker.removeAfter(queueName());
    const proxy = await startProxy();
    broker.onCleanup(() => proxy.close());
    const store = new MemoryStore();
    const { receiver } = handOffReceiver(await broker.connectRecovering(proxy.url), store, { queue });
    const runs = new Map<string, number>();
    const worker = await createWorker(
      { 'message.delivered': (event) => void runs.set(event.id, (runs.get(event.id) ?? 0) + 1) },
      {
        connection: await broker.connectRecovering(proxy.url),
        queue,
        store,
        prefetch: 20,
        logger: captureLogger(),
      },
    );
    broker.onCleanup(() => worker.close());

    const total = 300;
    const deliveries = Array.from({ length: total }, () =>
      createTestDelivery('message.delivered', { secret }),
    );
    const answers: { status: number; ms: number; during: boolean }[] = [];
    let down = false;
    let sent = 0;
    /** The service: sends each event until it is answered 200, waiting a little after anything else. */
    async function deliver(d: (typeof deliveries)[number]) {
      for (;;) {
        const started = Date.now();
        const during = down;
        const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
        answers.push({ status: res.status, ms: Date.now() - started, during });
        if (res.status === 200) return;
        await sleep(50);
      }
    }
    const lanes = Array.from({ length: 10 }, async () => {
      while (sent < total) {
        const d = deliveries[sent++]!;
        await deliver(d);
        if (sent === 100) {
          down = true;
          proxy.cut();
          setTimeout(() => {
            proxy.restore();
            down = false;
          }, 1500);
        }
      }
    });
    await Promise.all(lanes);
    await waitFor(() => deliveries.every((d) => runs.has(d.event.id)), 'every event to run', 30_000);
    await sleep(500);

    const during = answers.filter((a) => a.during);
    expect(during.some((a) => a.status === 503)).toBe(true);
    // While down the answer is quick: no wait for the confirm's time-out.
    for (const a of answers.filter((x) => x.status === 503)) expect(a.ms).toBeLessThan(5000);
    expect(answers.filter((a) => ![200, 409, 503].includes(a.status))).toEqual([]);
    for (const d of deliveries) expect(runs.get(d.event.id)).toBe(1);
    expect(runs.size).toBe(total);
  });
});
