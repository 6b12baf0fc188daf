import { createTestDelivery, MemoryStore } from '@sms-webhooks/core';
import { createWorker, failedFinder, findFailed, listFailed, replayFailed } from '@sms-webhooks/rabbitmq';
import { describe, expect, it } from 'vitest';
import { handOffReceiver, queueName, secret, useBroker, waitFor } from './set-up.js';

const broker = useBroker();

describe('findFailed and failedFinder: the failed queue read for the audit, nothing consumed', () => {
  it('finds the event that failed for good, not the one that ran, and leaves the failed queue as it was', async () => {
    const queue = broker.removeAfter(queueName(), [2000]);
    const connection = await broker.connect();
    const store = new MemoryStore();
    const { receiver } = handOffReceiver(connection, store, { queue });
    const bad = createTestDelivery('message.failed', { secret });
    const good = createTestDelivery('message.delivered', { secret });
    const other = createTestDelivery('message.failed', { secret });
    for (const d of [bad, good, other]) {
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    }
    const ran: string[] = [];
    const worker = await createWorker(
      {
        'message.failed': (event) => {
          ran.push(event.id);
          throw new Error('ledger is read-only');
        },
        'message.delivered': (event) => void ran.push(event.id),
      },
      { connection, queue, store, attempts: 1 },
    );
    broker.onCleanup(() => worker.close());
    await waitFor(async () => (await listFailed(connection, { queue })).length === 2, 'two failed');
    await waitFor(() => ran.length === 3, 'three runs');
    const before = (await listFailed(connection, { queue })).map((e) => e.eventId);
    expect([...before].sort()).toEqual([bad.event.id, other.event.id].sort());

    const found = await findFailed(connection, bad.event.id, { queue });
    expect(found).toMatchObject({
      eventId: bad.event.id,
      type: 'message.failed',
      attempts: 1,
      error: expect.stringMatching(/ledger is read-only/),
    });
    expect(found!.failedAt).toBeInstanceOf(Date);
    expect(await findFailed(connection, good.event.id, { queue })).toBeUndefined();
    expect(await findFailed(connection, 'evt_never_sent', { queue })).toBeUndefined();

    // One reading for many lookups, asked at once as the audit does.
    const find = failedFinder(connection, { queue });
    const answers = await Promise.all([bad, good, other].map((d) => find(d.event.id)));
    expect(answers.map((a) => a?.eventId)).toEqual([bad.event.id, undefined, other.event.id]);

    // Read, not consumed: both messages are still there (a quorum queue may put a returned message at
    // its back, so not always in the same order), and a replay still takes one.
    const after = await listFailed(connection, { queue });
    expect(after.map((e) => e.eventId).sort()).toEqual([...before].sort());
    await expect(replayFailed(connection, bad.event.id, { queue, store })).resolves.toMatchObject({
      status: 'replayed',
    });
  });

  it("read again and again, the message stays, and its attempts are the worker's runs, not the reads", async () => {
    const queue = broker.removeAfter(queueName(), [2000]);
    const connection = await broker.connect();
    const store = new MemoryStore();
    const { receiver } = handOffReceiver(connection, store, { queue });
    const d = createTestDelivery('message.failed', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    const worker = await createWorker(
      {
        'message.failed': () => {
          throw new Error('always');
        },
      },
      { connection, queue, store, attempts: 2, backoffMs: 10 },
    );
    broker.onCleanup(() => worker.close());
    await waitFor(async () => (await findFailed(connection, d.event.id, { queue })) !== undefined, 'failed');
    for (let i = 0; i < 10; i++) {
      // attempts come from the worker's runs header, not the failed queue's own delivery count.
      expect(await findFailed(connection, d.event.id, { queue })).toMatchObject({ attempts: 2 });
    }
    expect(await listFailed(connection, { queue })).toHaveLength(1);
  });

  it('the failed queue has a delivery limit of its own that reads never reach (RabbitMQ 4.0-4.2 default to 20)', async () => {
    const queue = broker.removeAfter(queueName());
    const connection = await broker.connect();
    const worker = await createWorker({ 'message.failed': () => {} }, { connection, queue });
    broker.onCleanup(() => worker.close());
    // A redeclaration with other arguments is refused (406): this one passes only if the limit is set.
    const channel = await connection.createChannel();
    channel.on('error', () => {});
    await expect(
      channel.assertQueue(`${queue}.failed`, {
        durable: true,
        arguments: { 'x-queue-type': 'quorum', 'x-delivery-limit': 1_000_000 },
      }),
    ).resolves.toMatchObject({ queue: `${queue}.failed` });
    await channel.close();
  });

  it('a queue that was never declared has nothing failed; a wrong connection is an option error', async () => {
    const connection = await broker.connect();
    const queue = queueName();
    expect(await findFailed(connection, 'evt_x', { queue })).toBeUndefined();
    expect(await failedFinder(connection, { queue })('evt_x')).toBeUndefined();
    // The connection is still usable: the missing queue closed only the reading channel.
    expect(await listFailed(connection, { queue })).toEqual([]);
    await expect(findFailed({} as never, 'evt_x')).rejects.toMatchObject({ code: 'ERR_SMS_OPTIONS' });
  });
});
