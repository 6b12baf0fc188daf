import { createReceiver, createTestDelivery, MemoryStore } from '@sms-webhooks/core';
import { createWorker, listFailed, replayFailed } from '@sms-webhooks/rabbitmq';
import { describe, expect, it } from 'vitest';
import { captureLogger, handOffReceiver, queueName, secret, sleep, useBroker, waitFor } from './set-up.js';

const broker = useBroker();

describe('createWorker', () => {
  it('retries with back-off through the retry queues, then completes the dedupe record', async () => {
    const waits = [200, 400];
    const queue = broker.removeAfter(queueName(), waits);
    const connection = await broker.connect();
    const store = new MemoryStore();
    const { receiver } = handOffReceiver(connection, store, { queue });
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    const runs: number[] = [];
    const worker = await createWorker(
      {
        'message.delivered': () => {
          runs.push(Date.now());
          if (runs.length < 3) throw new Error(`run ${runs.length} fails`);
        },
      },
      { connection, queue, store, attempts: 3, backoffMs: waits },
    );
    broker.onCleanup(() => worker.close());
    await waitFor(() => runs.length === 3, 'three runs');
    expect(runs[1]! - runs[0]!).toBeGreaterThanOrEqual(190);
    expect(runs[2]! - runs[1]!).toBeGreaterThanOrEqual(390);
    await waitFor(
      async () => (await store.claim(d.event.id, 'x', 1000)) === 'completed',
      'the record completed',
    );
  });

  it('what fails for good goes to the failed queue: onError once, claim released; listed; replayed once', async () => {
    const queue = broker.removeAfter(queueName(), [50]);
    const connection = await broker.connect();
    const store = new MemoryStore();
    const { receiver } = handOffReceiver(connection, store, { queue });
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    let fail = true;
    const ran: string[] = [];
    const reported: unknown[] = [];
    const worker = await createWorker(
      {
        'message.delivered': (event) => {
          ran.push(event.id);
          if (fail) throw new Error('downstream is down');
        },
      },
      { connection, queue, store, attempts: 2, backoffMs: 50, onError: (error) => void reported.push(error) },
    );
    broker.onCleanup(() => worker.close());
    await waitFor(() => reported.length === 1, 'the final failure to be reported');
    expect(ran).toHaveLength(2);
    expect((reported[0] as Error).message).toMatch(/downstream is down|handler/);
    const failed = await listFailed(connection, { queue });
    expect(failed).toEqual([
      expect.objectContaining({
        eventId: d.event.id,
        type: 'message.delivered',
        attempts: 2,
        error: expect.stringMatching(/downstream is down/),
      }),
    ]);
    expect(failed[0]!.failedAt).toBeInstanceOf(Date);
    // Listing gives every message back.
    expect(await listFailed(connection, { queue })).toHaveLength(1);
    // Released: a replay claims it.
    fail = false;
    const results = await Promise.allSettled([
      replayFailed(connection, d.event.id, { queue, store }),
      replayFailed(connection, d.event.id, { queue, store }),
    ]);
    const statuses = results.map((r) =>
      r.status === 'fulfilled' ? r.value.status : (r.reason as { code: string }).code,
    );
    expect(statuses.filter((s) => s === 'replayed')).toHaveLength(1);
    expect(statuses.filter((s) => s !== 'replayed')[0]).toMatch(/in-flight|ERR_SMS_RABBITMQ_NO_MESSAGE/);
    await waitFor(() => ran.length === 3, 'the replay to run');
    await waitFor(
      async () => (await store.claim(d.event.id, 'x', 1000)) === 'completed',
      'the record completed',
    );
    expect(await listFailed(connection, { queue })).toEqual([]);
    // Done: a replay now finds nothing to run.
    await expect(replayFailed(connection, d.event.id, { queue, store })).rejects.toMatchObject({
      code: 'ERR_SMS_RABBITMQ_NO_MESSAGE',
    });
    await sleep(200);
    expect(ran).toHaveLength(3);
  });

  it('two copies of one event in the queue run it once', async () => {
    const queue = broker.removeAfter(queueName(), [2000]);
    const connection = await broker.connect();
    const store = new MemoryStore();
    const { dispatch } = handOffReceiver(connection, store, { queue });
    const d = createTestDelivery('message.delivered', { secret });
    // The same dispatched event published twice, as a publisher that died before its 200 and a retry would.
    await store.claim(d.event.id, 'tok', 60_000);
    const dispatched = {
      event: d.event,
      ctx: { receivedAt: new Date() },
      claim: { key: d.event.id, token: 'tok' },
    };
    await dispatch(dispatched);
    await dispatch(dispatched);
    const ran: string[] = [];
    const worker = await createWorker(
      { 'message.delivered': (e) => void ran.push(e.id) },
      { connection, queue, store, prefetch: 1 },
    );
    broker.onCleanup(() => worker.close());
    await waitFor(
      async () => (await (await connection.createChannel()).checkQueue(queue)).messageCount === 0,
      'the queue to drain',
    );
    await sleep(300);
    expect(ran).toEqual([d.event.id]);
  });

  it('runs at most `prefetch` messages at once', async () => {
    const queue = broker.removeAfter(queueName(), [2000]);
    const connection = await broker.connect();
    const store = new MemoryStore();
    const { receiver } = handOffReceiver(connection, store, { queue });
    for (let i = 0; i < 6; i++) {
      const d = createTestDelivery('message.delivered', { secret });
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    }
    let now = 0;
    let most = 0;
    let done = 0;
    const worker = await createWorker(
      {
        'message.delivered': async () => {
          now += 1;
          most = Math.max(most, now);
          await sleep(100);
          now -= 1;
          done += 1;
        },
      },
      { connection, queue, store, prefetch: 2 },
    );
    broker.onCleanup(() => worker.close());
    await waitFor(() => done === 6, 'six runs');
    expect(most).toBe(2);
  });

  it("reports to the receiver's onError hooks, and a message that is not an event goes to the failed queue", async () => {
    const queue = broker.removeAfter(queueName(), [2000]);
    const connection = await broker.connect();
    const logger = captureLogger();
    const receiver = createReceiver({ secret, logger });
    receiver.on('message.failed', () => {
      throw new Error('always');
    });
    const hooked: unknown[] = [];
    receiver.onError((e) => void hooked.push(e));
    const worker = await createWorker(receiver, { connection, queue, attempts: 1 });
    broker.onCleanup(() => worker.close());
    const { dispatch } = handOffReceiver(connection, new MemoryStore(), { queue });
    const d = createTestDelivery('message.failed', { secret });
    await dispatch({ event: d.event, ctx: { receivedAt: new Date() } });
    await waitFor(() => hooked.length === 1, 'the hook');
    expect(hooked[0]).toMatchObject({ code: 'handler_failed' });
    const channel = await connection.createConfirmChannel();
    channel.sendToQueue(queue, Buffer.from('not json'), { messageId: 'junk', persistent: true });
    await channel.waitForConfirms();
    await waitFor(
      async () => (await listFailed(connection, { queue })).length === 2,
      'the junk in the failed queue',
    );
    expect(logger.text()).toMatch(/not an event/);
  });
});
