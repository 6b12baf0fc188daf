import { optionError } from '@sms-webhooks/internal';
import type { Channel, GetMessage } from 'amqplib';
import { type AmqpConnection, isConnection } from './channel-source.js';
import { decode, HEADERS } from './message.js';
import { OWNER, type Topology } from './topology.js';

/** One event that failed for good and sits in the failed queue. */
export interface FailedEvent {
  /** The event's id (`evt_…`). */
  eventId: string;
  /** The event's type. */
  type: string;
  /** The AMQP message id ({@link messageIdFor} of the event id). */
  messageId: string;
  /** Runs made, the last one included (a message dead-lettered by RabbitMQ itself: its deliveries). */
  attempts: number;
  /** When it was dead-lettered, when the message says. */
  failedAt: Date | undefined;
  /** The last error's message, or why RabbitMQ dead-lettered it (`delivery_limit`, `rejected` …). */
  error: string | undefined;
}

interface Death {
  reason?: string;
  count?: number;
  time?: { value?: number } | number;
}

/**
 * A message dead-lettered by RabbitMQ itself carries no runs header. Its `x-delivery-count` is the
 * failed queue's own count (each read of the failed queue adds one), so it says nothing about the
 * work queue: past `deliveryLimit` deliveries is what `delivery_limit` means.
 */
function brokerAttempts(death: Death | undefined, t: Topology): number {
  return death?.reason === 'delivery_limit' ? t.deliveryLimit + 1 : (death?.count ?? 0);
}

export function toFailedEvent(m: GetMessage, t: Topology): FailedEvent {
  const p = m.properties;
  const headers = p.headers ?? {};
  const death = (headers['x-death'] as Death[] | undefined)?.[0];
  const data = decode(m.content);
  const failedAt = headers[HEADERS.failedAt];
  const deathTime = typeof death?.time === 'object' ? death.time?.value : death?.time;
  const byBroker = death?.reason === undefined ? undefined : `dead-lettered by RabbitMQ: ${death.reason}`;
  const runs = headers[HEADERS.runs];
  return {
    eventId: data?.event.id ?? String(p.messageId ?? ''),
    type: data?.event.type ?? String(p.type ?? ''),
    messageId: String(p.messageId ?? ''),
    attempts: runs === undefined ? brokerAttempts(death, t) : Number(runs),
    failedAt:
      typeof failedAt === 'number'
        ? new Date(failedAt)
        : typeof deathTime === 'number'
          ? new Date(deathTime * 1000)
          : undefined,
    error: typeof headers[HEADERS.error] === 'string' ? headers[HEADERS.error] : byBroker,
  };
}

export function checkConnection(connection: unknown, call: string): AmqpConnection {
  if (!isConnection(connection)) {
    throw optionError(OWNER, `${call} needs a connection from amqplib.connect.`);
  }
  return connection;
}

/** A message taken without ack from the failed queue; `undefined` when the queue does not exist. */
export async function take(channel: Channel, queue: string): Promise<GetMessage | false | undefined> {
  try {
    return await channel.get(queue, { noAck: false });
  } catch (error) {
    if ((error as { code?: unknown }).code === 404) return undefined;
    throw error;
  }
}

/**
 * Reads the failed queue from its head, at most `limit` messages, until `visit` returns true, then
 * gives every message back. The messages are held unacked while it reads, so none is seen twice and
 * the read ends at the queue's end, and returned with one `basic.nack` (requeue): RabbitMQ 4.3 and
 * later count a nack as no failed delivery, where a `basic.reject` would count one.
 * Earlier quorum queues count every return (`x-delivery-count`); see the README on reading the failed
 * queue.
 */
export async function browseFailed(
  connection: AmqpConnection,
  t: Topology,
  limit: number,
  visit: (m: GetMessage) => boolean,
): Promise<void> {
  const channel = await connection.createChannel();
  channel.on('error', () => {});
  try {
    for (let read = 0; read < limit; read++) {
      const m = await take(channel, t.failedQueue);
      if (!m || visit(m)) break;
    }
  } finally {
    try {
      channel.nackAll(true);
    } catch {
      // The channel closed already (a missing queue closes it): RabbitMQ has every message back.
    }
    await channel.close().catch(() => {});
  }
}
