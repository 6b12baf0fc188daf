import { createTestDelivery, MemoryStore } from '@sms-webhooks/core';
import { createWorker, enqueueTo, findFailed, listFailed, replayFailed } from '@sms-webhooks/rabbitmq';
import { describe, expect, it } from 'vitest';
import { captureLogger, handOffReceiver, queueName, secret, sleep, useBroker, waitFor } from './set-up.js';

const broker = useBroker();

describe('poison messages, claims held elsewhere, and mismatched queues', () => {
  it('a message whose consumer dies deliveryLimit times is dead-lettered by RabbitMQ to the failed queue', async () => {
    const queue = broker.removeAfter(queueName());
    const connection = await broker.connect();
    const { receiver } = handOffReceiver(connection, new MemoryStore(), {
      queue,
      enqueue: { deliveryLimit: 1 },
    });
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    // A consumer that takes the message and dies (its channel closes without an ack), twice.
    for (let i = 0; i < 2; i++) {
      const channel = await (await broker.connect()).createChannel();
      expect(await channel.get(queue, { noAck: false })).toBeTruthy();
      await channel.close();
    }
    const failed = await waitFor(async () => {
      const list = await listFailed(connection, { queue, deliveryLimit: 1 });
      return list.length === 1 ? list : undefined;
    }, 'the message in the failed queue');
    expect(failed[0]).toMatchObject({
      eventId: d.event.id,
      error: expect.stringMatching(/dead-lettered by RabbitMQ/),
      attempts: 2,
    });
    // Its deliveries, past deliveryLimit: not the failed queue's own count, which each read adds to.
    for (let i = 0; i < 3; i++) {
      const found = await findFailed(connection, d.event.id, { queue, deliveryLimit: 1 });
      expect(found).toMatchObject({ attempts: 2 });
    }
  });

  it('a message whose claim another holder has waits and runs once that holder lets go', async () => {
    const queue = broker.removeAfter(queueName(), [100]);
    const connection = await broker.connect();
    const store = new MemoryStore();
    const d = createTestDelivery('message.delivered', { secret });
    // Another delivery holds the event right now; this message carries a claim that ran out.
    expect(await store.claim(d.event.id, 'elsewhere', 60_000)).toBe('claimed');
    await enqueueTo(connection, { queue })({
      event: d.event,
      ctx: { receivedAt: new Date() },
      claim: { key: d.event.id, token: 'gone' },
    });
    const ran: string[] = [];
    const worker = await createWorker(
      { 'message.delivered': (e) => void ran.push(e.id) },
      { connection, queue, store, backoffMs: 100 },
    );
    broker.onCleanup(() => worker.close());
    await sleep(500);
    expect(ran).toEqual([]);
    expect(await store.release(d.event.id, 'elsewhere')).toBe(true);
    await waitFor(() => ran.length === 1, 'the run once the claim was let go');
    await sleep(300);
    expect(ran).toEqual([d.event.id]);
  });

  it('a worker declaring the queue with other arguments is refused with ERR_SMS_RABBITMQ_TOPOLOGY', async () => {
    const queue = broker.removeAfter(queueName());
    const connection = await broker.connect();
    const { receiver } = handOffReceiver(connection, new MemoryStore(), { queue });
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    await expect(
      createWorker(
        {},
        { connection: await broker.connect(), queue, queueType: 'classic', logger: captureLogger() },
      ),
    ).rejects.toMatchObject({
      code: 'ERR_SMS_RABBITMQ_TOPOLOGY',
      message: expect.stringMatching(/same queue, queueType/),
    });
  });
});

describe('a worker on a plain connection that closes', () => {
  it('says it stopped consuming and how to have it reconnect', async () => {
    const queue = broker.removeAfter(queueName());
    const connection = await broker.connect();
    const logger = captureLogger();
    const worker = await createWorker({}, { connection, queue, logger });
    broker.onCleanup(() => worker.close());
    await connection.close();
    await waitFor(() => /stopped consuming .*recovery/.test(logger.text()), 'the log line');
  });
});

describe('option mistakes throw at start-up with ERR_SMS_OPTIONS', () => {
  const connection = { createConfirmChannel: async () => ({}), on() {}, off() {} } as never;

  it('enqueueTo', () => {
    expect(() => enqueueTo({} as never)).toThrow(
      expect.objectContaining({
        code: 'ERR_SMS_OPTIONS',
        message: expect.stringMatching(/amqplib\.connect/),
      }),
    );
    expect(() => enqueueTo(connection, { timeoutMs: '5000' as never })).toThrow(
      expect.objectContaining({
        code: 'ERR_SMS_OPTIONS',
        message:
          '@sms-webhooks/rabbitmq: `timeoutMs` must be a positive integer of ms, got the string "5000".',
      }),
    );
    expect(() => enqueueTo(connection, { queueType: 'lazy' as never })).toThrow(
      /`queueType` must be 'quorum' or 'classic'/,
    );
    expect(() => enqueueTo(connection, { queue: 'amq.mine' })).toThrow(/amq\./);
    expect(() => enqueueTo(connection, { store: {} as never })).toThrow(/`store`/);
  });

  it('createWorker and the failed-queue functions', async () => {
    await expect(createWorker({}, {} as never)).rejects.toMatchObject({ code: 'ERR_SMS_OPTIONS' });
    await expect(createWorker({}, { connection, backoffMs: [] })).rejects.toThrow(/at least one wait/);
    await expect(createWorker({}, { connection, attempts: 0 })).rejects.toThrow(
      /`attempts` must be a positive integer/,
    );
    await expect(replayFailed(connection, 'evt_x', {} as never)).rejects.toThrow(/dedupe store/);
    await expect(listFailed({} as never)).rejects.toMatchObject({ code: 'ERR_SMS_OPTIONS' });
  });
});
