import { randomBytes } from 'node:crypto';
import { createReceiver, type DedupeStore, type ReceiverOptions } from '@sms-webhooks/core';
import { type EnqueueOptions, enqueueTo } from '@sms-webhooks/rabbitmq';
import { captureLogger } from '@sms-webhooks/test-helpers';
import amqp, { type ChannelModel, type RecoveringChannelModel } from 'amqplib';
import { afterEach } from 'vitest';

export { captureLogger, sleep, waitFor } from '@sms-webhooks/test-helpers';

export const secret = 'whsec_rabbitmq0123456789abcdef0123456';
export const BROKER_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

/** A queue name of this test's own, so runs at the same time on the shared broker never meet. */
export function queueName(): string {
  return `sms-test-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Fast reconnects for tests. */
export const recovery = { initialDelay: 50, maxDelay: 500, jitter: 0 } as const;

export interface Broker {
  /** A plain connection, closed after the test. */
  connect(url?: string): Promise<ChannelModel>;
  /** A connection that reconnects by itself (amqplib's recovery), closed after the test. */
  connectRecovering(url?: string): Promise<RecoveringChannelModel>;
  /** Deletes every queue and exchange of `queue` after the test; `retryWaits`: the back-off's first waits. */
  removeAfter(queue: string, retryWaits?: number[]): string;
  onCleanup(fn: () => Promise<unknown>): void;
}

export function useBroker(): Broker {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const fn of cleanups.reverse()) await fn().catch(() => {});
    cleanups.length = 0;
  });
  const api: Broker = {
    async connect(url = BROKER_URL) {
      const connection = await amqp.connect(url);
      connection.on('error', () => {});
      cleanups.push(() => connection.close());
      return connection;
    },
    async connectRecovering(url = BROKER_URL) {
      const connection = await amqp.connect(url, { recovery });
      connection.on('error', () => {});
      cleanups.push(() => connection.close());
      return connection;
    },
    removeAfter(queue, retryWaits = []) {
      cleanups.unshift(async () => {
        const connection = await amqp.connect(BROKER_URL);
        const channel = await connection.createChannel();
        // Every wait of an exponential back-off from each base the test gave (and the default, 2 s):
        // its retry queues are `<queue>.retry.<base × 2^n>`; a list of waits is covered by its entries.
        const bases = [2000, ...retryWaits];
        const waits = new Set(bases.flatMap((base) => [1, 2, 4, 8, 16, 32, 64].map((n) => base * n)));
        for (const name of [queue, `${queue}.failed`, ...[...waits].map((w) => `${queue}.retry.${w}`)]) {
          await channel.deleteQueue(name);
        }
        await channel.deleteExchange(`${queue}.dead-letter`);
        await connection.close();
      });
      return queue;
    },
    onCleanup(fn) {
      cleanups.push(fn);
    },
  };
  return api;
}

/** The receiving process: verifies, claims and publishes. Its handlers only decide what is accepted. */
export function handOffReceiver(
  connection: Parameters<typeof enqueueTo>[0],
  store: DedupeStore,
  options: { queue: string; enqueue?: Partial<EnqueueOptions> } & Partial<ReceiverOptions>,
) {
  const { queue, enqueue, ...rest } = options;
  const logger = captureLogger();
  const dispatch = enqueueTo(connection, { store, queue, logger, ...enqueue });
  const receiver = createReceiver({ secret, store, logger, dispatch, ...rest });
  for (const type of ['message.delivered', 'message.failed'] as const) {
    receiver.on(type, () => {
      throw new Error('handlers must not run in the receiving process');
    });
  }
  return { receiver, logger, dispatch };
}
