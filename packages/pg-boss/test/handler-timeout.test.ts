import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { createWorker } from '@sms-webhooks/pg-boss';
import { hungOnce } from '@sms-webhooks/test-helpers/hung-handler';
import { describe, expect, it } from 'vitest';
import { queueSetUp, waitForJob } from './queue-set-up.js';
import { captureLogger, handOffReceiver, MAJORS, secret, useDatabase } from './set-up.js';

describe.each(MAJORS)('$label', (major) => {
  const db = useDatabase('pgboss_handler_timeout', major);

  it("a job whose handler never settles fails at the receiver's handlerTimeoutMs, is retried, and its claim is let go", async () => {
    const { boss, store, queue } = await queueSetUp(db);
    const { receiver } = handOffReceiver(boss, store, {
      queue,
      enqueue: { attempts: 2, retryDelaySeconds: 0, retryBackoff: false },
    });
    const { receiver: workerSide, signals, timeOut } = hungOnce({ secret, store });
    const worker = await createWorker(workerSide, boss, { queue, pollingIntervalSeconds: 0.5 });
    db.onCleanup(() => worker.close());
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);

    await timeOut();
    await waitForJob(boss, queue, d.event.id, 'completed', 'the retry to complete');
    expect(signals).toHaveLength(2);
    expect(await store.claim(d.event.id, 'probe', 1000)).toBe('completed');
  });

  it('handlerTimeoutMs on the worker is for a map of handlers: refused at start-up with a receiver or a bad value', async () => {
    const { boss } = await queueSetUp(db);
    const receiver = createReceiver({ secret, logger: captureLogger() });
    await expect(createWorker(receiver, boss, { handlerTimeoutMs: 1_000 })).rejects.toMatchObject({
      code: 'ERR_SMS_OPTIONS',
      message: expect.stringMatching(/^@sms-webhooks\/pg-boss: .*createReceiver\(\{ handlerTimeoutMs \}\)/),
    });
    await expect(
      createWorker({ 'message.sent': () => {} }, boss, { handlerTimeoutMs: 1.5 }),
    ).rejects.toMatchObject({
      code: 'ERR_SMS_OPTIONS',
      message: expect.stringContaining('handlerTimeoutMs'),
    });
  });
});
