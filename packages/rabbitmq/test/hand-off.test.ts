import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createReceiver, createTestDelivery, MemoryStore } from '@sms-webhooks/core';
import { createWorker, enqueueTo, messageIdFor } from '@sms-webhooks/rabbitmq';
import { describe, expect, it } from 'vitest';
import { handOffReceiver, queueName, secret, useBroker, waitFor } from './set-up.js';
import { startProxy } from './tcp-proxy.js';

const run = promisify(execFile);
const broker = useBroker();

describe('enqueueTo: the 200 once RabbitMQ confirmed', () => {
  it('publishes a persistent message, id the event id, to a durable queue, then answers 200', async () => {
    const queue = broker.removeAfter(queueName());
    const connection = await broker.connect();
    const store = new MemoryStore();
    const { receiver } = handOffReceiver(connection, store, { queue });
    const d = createTestDelivery('message.delivered', { secret });
    const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect(res.status).toBe(200);

    const channel = await connection.createChannel();
    const m = await channel.get(queue, { noAck: true });
    if (!m) throw new Error('no message in the queue');
    expect(m.properties).toMatchObject({
      messageId: d.event.id,
      type: 'message.delivered',
      contentType: 'application/json',
      deliveryMode: 2,
    });
    const data = JSON.parse(m.content.toString('utf8'));
    expect(data.event).toEqual(d.event);
    expect(data.claim).toMatchObject({ key: d.event.id });
    // Declared durable: a non-durable declaration of the same name is refused.
    const check = await connection.createChannel();
    check.on('error', () => {});
    await expect(check.assertQueue(queue, { durable: false })).rejects.toMatchObject({ code: 406 });
  });

  it('holds the claim once confirmed: a redelivery while queued is 409 and makes no second message', async () => {
    const queue = broker.removeAfter(queueName(), [2000]);
    const connection = await broker.connect();
    const store = new MemoryStore();
    // Lease 300 ms: without the hold, the claim would run out long before the worker comes.
    const { receiver } = handOffReceiver(connection, store, { queue, leaseMs: 300 });
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 600));
    const again = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect(again.status).toBe(409);
    const channel = await connection.createChannel();
    expect((await channel.checkQueue(queue)).messageCount).toBe(1);

    const ran: string[] = [];
    const worker = await createWorker(
      { 'message.delivered': (event) => void ran.push(event.id) },
      { connection, queue, store },
    );
    broker.onCleanup(() => worker.close());
    await waitFor(() => ran.length === 1, 'the worker to run the event');
    await waitFor(
      async () => JSON.parse((await receiver.handle({ rawBody: d.body, headers: d.headers })).body).duplicate,
      'the redelivery to be a duplicate',
    );
    expect(ran).toEqual([d.event.id]);
  });

  it('answers 503 when the broker nacks (a reject-publish policy on a full classic queue), and releases the claim', async () => {
    const queue = broker.removeAfter(queueName());
    const policy = `sms-test-${queue}`;
    await run('rabbitmqctl', [
      'set_policy',
      '--apply-to',
      'queues',
      policy,
      `^${queue}$`,
      '{"max-length":0,"overflow":"reject-publish"}',
    ]);
    broker.onCleanup(() => run('rabbitmqctl', ['clear_policy', policy]));
    const connection = await broker.connect();
    const store = new MemoryStore();
    const { receiver, logger } = handOffReceiver(connection, store, {
      queue,
      enqueue: { queueType: 'classic' },
    });
    const d = createTestDelivery('message.delivered', { secret });
    const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect(res.status).toBe(503);
    expect(logger.text()).toMatch(/ERR_SMS_RABBITMQ_NACKED|nack/);
    // Released: the service's retry claims it again.
    expect(await store.claim(d.event.id, 'next', 1000)).toBe('claimed');
  });

  it('answers 503 when the message reaches no queue (deleted under it)', async () => {
    const queue = broker.removeAfter(queueName());
    const connection = await broker.connect();
    const { receiver, logger } = handOffReceiver(connection, new MemoryStore(), { queue });
    const first = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: first.body, headers: first.headers })).status).toBe(200);
    const channel = await connection.createChannel();
    await channel.deleteQueue(queue);
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(503);
    expect(logger.text()).toMatch(/reached no queue/);
  });

  it('answers 503 at once while the connection is down, and 200 again after amqplib reconnected', async () => {
    const queue = broker.removeAfter(queueName());
    const proxy = await startProxy();
    broker.onCleanup(() => proxy.close());
    const connection = await broker.connectRecovering(proxy.url);
    const { receiver } = handOffReceiver(connection, new MemoryStore(), { queue });
    const send = async () => {
      const d = createTestDelivery('message.delivered', { secret });
      return (await receiver.handle({ rawBody: d.body, headers: d.headers })).status;
    };
    expect(await send()).toBe(200);
    proxy.cut();
    await waitFor(async () => (await send()) === 503, 'a 503 while the broker is away');
    const started = Date.now();
    expect(await send()).toBe(503);
    expect(Date.now() - started).toBeLessThan(1000);
    proxy.restore();
    await waitFor(async () => (await send()) === 200, 'a 200 once reconnected');
  });

  it('a connection closed for good (no recovery) answers 503, saying how to reconnect', async () => {
    const queue = broker.removeAfter(queueName());
    const connection = await broker.connect();
    const { receiver, logger } = handOffReceiver(connection, new MemoryStore(), { queue });
    await connection.close();
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(503);
    expect(logger.text()).toMatch(/recovery/);
  });

  it('takes a confirm channel instead of a connection', async () => {
    const queue = broker.removeAfter(queueName());
    const connection = await broker.connect();
    const channel = await connection.createConfirmChannel();
    const { receiver } = handOffReceiver(channel, new MemoryStore(), { queue });
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    expect((await channel.checkQueue(queue)).messageCount).toBe(1);
  });

  it('a 1 MiB event goes through whole', { timeout: 30_000 }, async () => {
    const queue = broker.removeAfter(queueName());
    const connection = await broker.connect();
    const store = new MemoryStore();
    const { receiver } = handOffReceiver(connection, store, { queue, maxBodyBytes: 2 * 1024 * 1024 });
    const d = createTestDelivery('message.delivered', {
      secret,
      data: { metadata: { blob: 'x'.repeat(1024 * 1024) } } as never,
    });
    expect(Buffer.byteLength(d.body)).toBeGreaterThan(1024 * 1024);
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    const got: unknown[] = [];
    const worker = await createWorker(
      { 'message.delivered': (e) => void got.push(e) },
      { connection, queue, store },
    );
    broker.onCleanup(() => worker.close());
    await waitFor(() => got.length === 1, 'the 1 MiB event to run');
    expect(got[0]).toEqual(d.event);
  });

  it('NUL and lone surrogates in event text: escaped JSON on the wire, the same text in the handler', async () => {
    const queue = broker.removeAfter(queueName());
    const connection = await broker.connect();
    const store = new MemoryStore();
    const { receiver } = handOffReceiver(connection, store, { queue });
    const text = 'a\u0000b\ud800c\udc00d\ud83d\ude00e';
    const d = createTestDelivery('message.delivered', { secret, data: { metadata: { text } } as never });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);

    const channel = await connection.createChannel();
    const m = await channel.get(queue, { noAck: false });
    if (!m) throw new Error('no message');
    const wire = m.content;
    // Valid UTF-8 that decodes and encodes back to the same bytes: no U+FFFD replaced a lone surrogate.
    expect(Buffer.from(wire.toString('utf8'), 'utf8').equals(wire)).toBe(true);
    expect(wire.includes(Buffer.from([0xef, 0xbf, 0xbd]))).toBe(false);
    expect(wire.includes(0)).toBe(false);
    const raw = wire.toString('latin1');
    expect(raw).toContain('a\\u0000b\\ud800c\\udc00d');
    channel.nack(m, false, true);
    await channel.close();

    const got: string[] = [];
    const worker = await createWorker(
      { 'message.delivered': (e) => void got.push((e.data.metadata as { text: string }).text) },
      { connection, queue, store },
    );
    broker.onCleanup(() => worker.close());
    await waitFor(() => got.length === 1, 'the event to run');
    expect(got[0]).toBe(text);
  });

  it('a long event id gets a hashed message id', () => {
    expect(messageIdFor('evt_short')).toBe('evt_short');
    expect(messageIdFor(`evt_${'é'.repeat(200)}`)).toMatch(/^sha256-[0-9a-f]{64}$/);
  });

  it('order is refused with this dispatch: the RabbitMQ worker does not apply it (BullMQ and pg-boss do)', async () => {
    const connection = await broker.connect();
    expect(() =>
      createReceiver({ secret, order: true, dispatch: enqueueTo(connection, { queue: queueName() }) }),
    ).toThrow(
      expect.objectContaining({
        code: 'ERR_SMS_OPTIONS',
        message: expect.stringMatching(/`order` with `dispatch` needs a hand-off whose worker applies it/),
      }),
    );
  });
});
