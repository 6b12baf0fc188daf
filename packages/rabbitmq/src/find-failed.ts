import { positiveOption } from '@sms-webhooks/internal';
import type { AmqpConnection } from './channel-source.js';
import { browseFailed, checkConnection, type FailedEvent, toFailedEvent } from './failed-event.js';
import { messageIdFor } from './publish.js';
import { OWNER, type TopologyOptions, topology } from './topology.js';

export interface FindFailedOptions extends TopologyOptions {
  /** Most messages read from the failed queue. Default 10,000. */
  limit?: number;
}

const options = (o: FindFailedOptions | undefined) => ({
  t: topology(o),
  limit: positiveOption('limit', o?.limit, 10_000, { owner: OWNER, integer: true }),
});

/**
 * The failed message of one event, or undefined when the failed queue holds none (among its first
 * `limit` messages): what the audit reads for an event the app acknowledged but never finished. Reads
 * the queue from its head until it finds the event and gives every message back (see `browseFailed`).
 */
export async function findFailed(
  connection: AmqpConnection,
  eventId: string,
  findOptions?: FindFailedOptions,
): Promise<FailedEvent | undefined> {
  const conn = checkConnection(connection, 'findFailed(connection, eventId)');
  const { t, limit } = options(findOptions);
  const messageId = messageIdFor(eventId);
  let found: FailedEvent | undefined;
  await browseFailed(conn, t, limit, (m) => {
    if (m.properties.messageId !== messageId) return false;
    const event = toFailedEvent(m, t);
    if (event.eventId === eventId) found = event;
    return found !== undefined;
  });
  return found;
}

/**
 * `findFailed` for many events: the failed queue is read once, on the first call, and every call
 * answers from that reading. For the audit's `findFailed` option, which asks per event: one read of the
 * queue per audit instead of one per event (each read is a redelivery of every message it passes).
 */
export function failedFinder(
  connection: AmqpConnection,
  findOptions?: FindFailedOptions,
): (eventId: string) => Promise<FailedEvent | undefined> {
  const conn = checkConnection(connection, 'failedFinder(connection)');
  const { t, limit } = options(findOptions);
  let reading: Promise<Map<string, FailedEvent>> | undefined;
  const read = async () => {
    const byEvent = new Map<string, FailedEvent>();
    await browseFailed(conn, t, limit, (m) => {
      const event = toFailedEvent(m, t);
      if (!byEvent.has(event.eventId)) byEvent.set(event.eventId, event);
      return false;
    });
    return byEvent;
  };
  return async (eventId) => {
    reading ??= read();
    return (await reading).get(eventId);
  };
}
