import { createTestDelivery, MemoryStore } from '@sms-webhooks/core';
import { createWorker } from '@sms-webhooks/rabbitmq';
import { hungOnce } from '@sms-webhooks/test-helpers/hung-handler';
import { expect, it } from 'vitest';
import { handOffReceiver, queueName, secret, useBroker, waitFor } from './set-up.js';

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
