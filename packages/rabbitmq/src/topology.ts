import { oneOfOption, optionError, positiveOption } from '@sms-webhooks/internal';
import type { Channel } from 'amqplib';
import { describe, RabbitHandOffError } from './errors.js';

export const OWNER = '@sms-webhooks/rabbitmq';

/** Default queue name for `enqueueTo`, `createWorker` and the failed-queue functions. */
export const DEFAULT_QUEUE_NAME = 'sms-webhooks';

/** Where the events go. Give every side (receiver, worker, `listFailed`, `replayFailed`) the same. */
export interface TopologyOptions {
  /** The work queue; the others are named after it (`.failed`, `.dead-letter`, `.retry.<ms>`). Default 'sms-webhooks'. */
  queue?: string;
  /** 'quorum' (default: replicated, poison messages dead-lettered after `deliveryLimit`) or 'classic'. */
  queueType?: 'quorum' | 'classic';
  /**
   * Quorum queues: a message handed out this many times without an ack (its worker died each time) is
   * dead-lettered to the failed queue. Default 20. Ignored for classic queues.
   */
  deliveryLimit?: number;
}

export interface Topology {
  queue: string;
  failedQueue: string;
  deadLetterExchange: string;
  queueType: 'quorum' | 'classic';
  deliveryLimit: number;
  retryQueue(delayMs: number): string;
}

/** AMQP names are at most 255 bytes; room is kept for the `.retry.<ms>` suffix. */
const MAX_QUEUE_BYTES = 200;

export function topology(options: TopologyOptions | undefined): Topology {
  const queue = options?.queue ?? DEFAULT_QUEUE_NAME;
  if (typeof queue !== 'string' || queue === '' || Buffer.byteLength(queue) > MAX_QUEUE_BYTES) {
    throw optionError(OWNER, `\`queue\` must be a queue name of 1 to ${MAX_QUEUE_BYTES} bytes.`);
  }
  if (queue.startsWith('amq.')) {
    throw optionError(OWNER, '`queue` must not start with "amq.": RabbitMQ keeps those names for itself.');
  }
  const queueType = oneOfOption('queueType', options?.queueType, ['quorum', 'classic'] as const, OWNER);
  const deliveryLimit = positiveOption('deliveryLimit', options?.deliveryLimit, 20, {
    owner: OWNER,
    integer: true,
  });
  return {
    queue,
    failedQueue: `${queue}.failed`,
    deadLetterExchange: `${queue}.dead-letter`,
    queueType,
    deliveryLimit,
    retryQueue: (delayMs) => `${queue}.retry.${delayMs}`,
  };
}

/** Quorum queues dead-letter at least once (the broker retries until the target has it). */
function deadLettering(t: Topology): Record<string, unknown> {
  return t.queueType === 'quorum'
    ? { 'x-dead-letter-strategy': 'at-least-once', 'x-overflow': 'reject-publish' }
    : {};
}

async function declare(work: () => Promise<unknown>, t: Topology): Promise<void> {
  try {
    await work();
  } catch (error) {
    if ((error as { code?: unknown }).code !== 406) throw error;
    throw new RabbitHandOffError(
      'ERR_SMS_RABBITMQ_TOPOLOGY',
      `a queue of ${t.queue} exists with other arguments than these options declare (${describe(error)}). Give enqueueTo, createWorker, listFailed and replayFailed the same queue, queueType and deliveryLimit, or delete the old queues.`,
      { cause: error },
    );
  }
}

/**
 * Reading the failed queue returns every message to it, and quorum queues count returns: RabbitMQ 4.0 to
 * 4.2 drop a message past a default limit of 20 returns. A limit of its own, high enough never to be met,
 * keeps a failed event however often it is listed or audited (-1 would mean none allowed on RabbitMQ 3).
 */
export const FAILED_QUEUE_DELIVERY_LIMIT = 1_000_000;

function failedQueueArguments(t: Topology): Record<string, unknown> {
  const type = { 'x-queue-type': t.queueType };
  return t.queueType === 'quorum' ? { ...type, 'x-delivery-limit': FAILED_QUEUE_DELIVERY_LIMIT } : type;
}

/** Declares the work queue, the dead-letter exchange and the failed queue (idempotent, durable). */
export async function assertTopology(channel: Channel, t: Topology): Promise<void> {
  const type = { 'x-queue-type': t.queueType };
  await declare(async () => {
    await channel.assertExchange(t.deadLetterExchange, 'fanout', { durable: true });
    await channel.assertQueue(t.failedQueue, { durable: true, arguments: failedQueueArguments(t) });
    await channel.bindQueue(t.failedQueue, t.deadLetterExchange, '');
    await channel.assertQueue(t.queue, {
      durable: true,
      arguments: {
        ...type,
        'x-dead-letter-exchange': t.deadLetterExchange,
        ...(t.queueType === 'quorum' ? { 'x-delivery-limit': t.deliveryLimit } : {}),
        ...deadLettering(t),
      },
    });
  }, t);
}

/** A queue that holds a message `delayMs`, then dead-letters it back to the work queue. */
export async function assertRetryQueue(channel: Channel, t: Topology, delayMs: number): Promise<string> {
  const name = t.retryQueue(delayMs);
  await declare(
    () =>
      channel.assertQueue(name, {
        durable: true,
        arguments: {
          'x-queue-type': t.queueType,
          'x-message-ttl': delayMs,
          'x-dead-letter-exchange': '',
          'x-dead-letter-routing-key': t.queue,
          ...deadLettering(t),
        },
      }),
    t,
  );
  return name;
}
