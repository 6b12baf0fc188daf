import { randomUUID } from 'node:crypto';
import type { DedupeStore } from '@sms-webhooks/core';
import { optionError, positiveOption } from '@sms-webhooks/internal';
import type { GetMessage } from 'amqplib';
import type { AmqpConnection } from './channel-source.js';
import { RabbitHandOffError } from './errors.js';
import { browseFailed, checkConnection, type FailedEvent, take, toFailedEvent } from './failed-event.js';
import { decode, encode } from './message.js';
import { messageIdFor, publishConfirmed } from './publish.js';
import { OWNER, type TopologyOptions, topology } from './topology.js';

export type { FailedEvent };
/** Where {@link listFailed}, {@link findFailed} and {@link replayFailed} look: the same topology options the worker was given. */
export type FailedQueueOptions = TopologyOptions;

/** What {@link replayFailed} needs: the topology, and the store where it claims the event again. */
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
  /** The event asked for. */
  eventId: string;
  /** Its message's id. */
  messageId: string;
  /** See above. */
  status: 'replayed' | 'completed' | 'in-flight';
}

/**
 * The events in the failed queue, oldest first, at most `limit` (default 100). Read-only: the messages
 * are taken without an ack and given back at the end (see `browseFailed`), so a replay running at the
 * same moment may not find one of them.
 */
export async function listFailed(
  connection: AmqpConnection,
  options: FailedQueueOptions & { limit?: number } = {},
): Promise<FailedEvent[]> {
  const conn = checkConnection(connection, 'listFailed(connection)');
  const t = topology(options);
  const limit = positiveOption('limit', options.limit, 100, { owner: OWNER, integer: true });
  const events: FailedEvent[] = [];
  await browseFailed(conn, t, limit, (m) => {
    events.push(toFailedEvent(m, t));
    return false;
  });
  return events;
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
    try {
      // The others go back with a nack, which RabbitMQ 4.3+ counts as no failed delivery.
      channel.nackAll(true);
    } catch {
      // The channel closed already: RabbitMQ has them back.
    }
    await channel.close().catch(() => {});
  }
}
