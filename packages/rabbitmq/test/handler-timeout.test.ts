import { createReceiver, createTestDelivery, MemoryStore } from '@sms-webhooks/core';
import { createWorker } from '@sms-webhooks/rabbitmq';
import { hungOnce } from '@sms-webhooks/test-helpers/hung-handler';
import { expect, it } from 'vitest';
import { captureLogger, handOffReceiver, queueName, secret, useBroker, waitFor } from './set-up.js';

const broker = useBroker();

it("a message whose handler never settles fails at the receiver's handlerTimeoutMs, is retried, and its claim is let go", async () => {
  const queue = broker.removeAfter(queueName(), [50]);
  const connection = await broker.connect();
  const store = new MemoryStore();
  const { receiver } = handOffReceiver(connection, store, { queue });
  const { receiver: workerSide, signals, timeOut } = hungOnce({ secret, store });
  const worker = await createWorker(workerSide, { connection, queue, store, attempts: 2, backoffMs: 50 });
  broker.onCleanup(() => worker.close());
  const d = createTestDelivery('message.delivered', { secret });
  expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);

  await timeOut();
  await waitFor(() => signals.length === 2, 'the retry');
  await waitFor(
    async () => (await store.claim(d.event.id, 'probe', 1000)) === 'completed',
    'the record completed',
  );
});

it('handlerTimeoutMs on the worker is for a map of handlers: refused at start-up with a receiver or a bad value', async () => {
  const connection = await broker.connect();
  const receiver = createReceiver({ secret, logger: captureLogger() });
  await expect(createWorker(receiver, { connection, handlerTimeoutMs: 1_000 })).rejects.toMatchObject({
    code: 'ERR_SMS_OPTIONS',
    message: expect.stringMatching(/^@sms-webhooks\/rabbitmq: .*createReceiver\(\{ handlerTimeoutMs \}\)/),
  });
  await expect(
    createWorker({ 'message.sent': () => {} }, { connection, handlerTimeoutMs: -1 }),
  ).rejects.toMatchObject({ code: 'ERR_SMS_OPTIONS', message: expect.stringContaining('handlerTimeoutMs') });
});
