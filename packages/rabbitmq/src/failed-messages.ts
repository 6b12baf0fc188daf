import { randomUUID } from 'node:crypto';
import type { DedupeStore } from '@sms-webhooks/core';
import { optionError, positiveOption } from '@sms-webhooks/core/queue';
import type { ConfirmChannel, GetMessage } from 'amqplib';
import { type AmqpConnection, isConnection } from './channel-source.js';
import { RabbitHandOffError } from './errors.js';
import { decode, encode, HEADERS } from './message.js';
import { messageIdFor, publishConfirmed } from './publish.js';
import { OWNER, type TopologyOptions, topology } from './topology.js';

export type FailedQueueOptions = TopologyOptions;

/** One event that failed for good and sits in the failed queue. */
export interface FailedEvent {
  eventId: string;
  type: string;
  messageId: string;
  /** Runs made, the last one included (a message dead-lettered by RabbitMQ itself: its deliveries). */
  attempts: number;
  failedAt: Date | undefined;
  /** The last error's message, or why RabbitMQ dead-lettered it (`delivery_limit`, `rejected` …). */
  error: string | undefined;
}

export interface ReplayOptions extends FailedQueueOptions {
  /** The receiver's dedupe store: the replay claims the event there, so it runs once. Required. */
  store: DedupeStore;
  /** The lease of the replay's claim until the worker renews it. Default 30 min. */
  leaseMs?: number;
}

/**
 * `replayed`: the event is back in the work queue with a claim of its own and runs once. `completed`:
 * the dedupe record says it is done; nothing runs. `in-flight`: another delivery or replay holds its
 * claim right now; nothing changes. The message stays in the failed queue unless replayed.
 */
export interface ReplayResult {
  eventId: string;
  messageId: string;
  status: 'replayed' | 'completed' | 'in-flight';
}

interface Death {
  reason?: string;
  count?: number;
  time?: { value?: number } | number;
}

function toFailedEvent(m: GetMessage): FailedEvent {
  const p = m.properties;
  const headers = p.headers ?? {};
  const death = (headers['x-death'] as Death[] | undefined)?.[0];
  const data = decode(m.content);
  const failedAt = headers[HEADERS.failedAt];
  const deathTime = typeof death?.time === 'object' ? death.time?.value : death?.time;
  const byBroker = death?.reason === undefined ? undefined : `dead-lettered by RabbitMQ: ${death.reason}`;
  return {
    eventId: data?.event.id ?? String(p.messageId ?? ''),
    type: data?.event.type ?? String(p.type ?? ''),
    messageId: String(p.messageId ?? ''),
    attempts: Number(headers[HEADERS.runs] ?? headers['x-delivery-count'] ?? death?.count ?? 0),
    failedAt:
      typeof failedAt === 'number'
        ? new Date(failedAt)
        : typeof deathTime === 'number'
          ? new Date(deathTime * 1000)
          : undefined,
    error: typeof headers[HEADERS.error] === 'string' ? headers[HEADERS.error] : byBroker,
  };
}

function checkConnection(connection: unknown, call: string): AmqpConnection {
  if (!isConnection(connection)) {
    throw optionError(OWNER, `${call} needs a connection from amqplib.connect.`);
  }
  return connection;
}

/** A channel's messages, taken without ack from the failed queue; `undefined` when the queue does not exist. */
async function take(channel: ConfirmChannel, queue: string): Promise<GetMessage | false | undefined> {
  try {
    return await channel.get(queue, { noAck: false });
  } catch (error) {
    if ((error as { code?: unknown }).code === 404) return undefined;
    throw error;
  }
}

/**
 * The events in the failed queue, oldest first, at most `limit` (default 100). Read-only: the messages
 * are taken without an ack and given back when the channel closes, so a replay running at the same
 * moment may not find one of them.
 */
export async function listFailed(
  connection: AmqpConnection,
  options: FailedQueueOptions & { limit?: number } = {},
): Promise<FailedEvent[]> {
  const conn = checkConnection(connection, 'listFailed(connection)');
  const t = topology(options);
  const limit = positiveOption('limit', options.limit, 100, { owner: OWNER, integer: true });
  const channel = await conn.createConfirmChannel();
  channel.on('error', () => {});
  const events: FailedEvent[] = [];
  try {
    while (events.length < limit) {
      const m = await take(channel, t.failedQueue);
      if (!m) break;
      events.push(toFailedEvent(m));
    }
    return events;
  } finally {
    await channel.close().catch(() => {});
  }
}

/**
 * Runs a failed event again, once. Its message is taken from the failed queue, the event claimed in the
 * dedupe store under a new token (`completed` or `in-flight`: nothing changes), the event published to
 * the work queue with that claim and its runs reset (confirmed), and only then the failed message
 * acked. Rejects with ERR_SMS_RABBITMQ_NO_MESSAGE when the failed queue holds no message for the event.
 */
export async function replayFailed(
  connection: AmqpConnection,
  eventId: string,
  options: ReplayOptions,
): Promise<ReplayResult> {
  const conn = checkConnection(connection, 'replayFailed(connection, eventId, { store })');
  const store = options?.store;
  if (typeof store?.claim !== 'function') {
    throw optionError(
      OWNER,
      "replayFailed(connection, eventId, { store }) needs the receiver's dedupe store.",
    );
  }
  const t = topology(options);
  const leaseMs = positiveOption('leaseMs', options.leaseMs, 30 * 60_000, {
    owner: OWNER,
    integer: true,
    unit: 'ms',
  });
  const messageId = messageIdFor(eventId);
  const result = (status: ReplayResult['status']): ReplayResult => ({ eventId, messageId, status });
  const channel = await conn.createConfirmChannel();
  channel.on('error', () => {});
  try {
    // The messages looked at are held unacked until the channel closes, so two replays cannot take one.
    let found: { m: GetMessage; data: NonNullable<ReturnType<typeof decode>> } | undefined;
    for (;;) {
      const m = await take(channel, t.failedQueue);
      if (!m) break;
      const data = m.properties.messageId === messageId ? decode(m.content) : undefined;
      if (data?.event.id === eventId) {
        found = { m, data };
        break;
      }
    }
    if (found === undefined) {
      throw new RabbitHandOffError(
        'ERR_SMS_RABBITMQ_NO_MESSAGE',
        `no message for ${eventId.slice(0, 80)} in ${t.failedQueue.slice(0, 80)} (or a list or replay holds it right now).`,
      );
    }
    const { m, data } = found;
    const claim = { key: data.claim?.key ?? eventId, token: randomUUID() };
    const claimed = await store.claim(claim.key, claim.token, leaseMs);
    if (claimed !== 'claimed') return result(claimed);
    try {
      await publishConfirmed(channel, '', t.queue, encode({ ...data, claim }), {
        messageId,
        type: data.event.type,
        contentType: 'application/json',
        timestamp: m.properties.timestamp ?? Math.floor(Date.now() / 1000),
      });
    } catch (error) {
      await Promise.resolve(store.release(claim.key, claim.token)).catch(() => {});
      throw error;
    }
    // Acked after the confirm: a crash in between leaves the failed copy, and a replay of it finds the
    // event claimed or completed, so it still runs once.
    channel.ack(m);
    return result('replayed');
  } finally {
    await channel.close().catch(() => {});
  }
}
