import type { DedupeStore, Logger } from '@sms-webhooks/core';
import { type Dispatch, DispatchTimeoutError } from '@sms-webhooks/core/queue';
import { optionError, positiveOption, withTimeout } from '@sms-webhooks/internal';
import { type AmqpSource, ConfirmChannelSource, isConfirmChannel, isConnection } from './channel-source.js';
import { describe } from './errors.js';
import { encode, toMessageData } from './message.js';
import { messageIdFor, publishConfirmed } from './publish.js';
import { assertTopology, OWNER, type TopologyOptions, topology } from './topology.js';

export interface EnqueueOptions extends TopologyOptions {
  /**
   * The receiver's dedupe store. Once the broker confirmed a message, its claim is held `holdMs`, so a
   * redelivery while the message waits is answered 409 and never becomes a second message.
   */
  store?: DedupeStore;
  /** How long the claim is held for a confirmed message, in ms. Default 24 h. */
  holdMs?: number;
  /** How long to wait for the broker's confirm before answering 503. Default 5000 ms. */
  timeoutMs?: number;
  /** Default console. */
  logger?: Logger;
}

/** The receiver's `dispatch`, with `close()` for the channel it opened. */
export interface RabbitDispatch extends Dispatch {
  /** Closes the confirm channel the hand-off opened (never the connection it was given). */
  close(): Promise<void>;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const INT = { owner: OWNER, integer: true } as const;

/**
 * A receiver `dispatch` that publishes each verified event to a durable RabbitMQ queue and resolves once
 * the broker confirmed it: `createReceiver({ secret, store, dispatch: enqueueTo(connection, { store }) })`.
 * The message is persistent, its `messageId` the event id. A nack, an unroutable message, a closed
 * channel, a lost connection or no confirm within `timeoutMs` rejects, and the receiver answers 503.
 */
export function enqueueTo(amqp: AmqpSource, options: EnqueueOptions = {}): RabbitDispatch {
  if (!isConnection(amqp) && !isConfirmChannel(amqp)) {
    throw optionError(
      OWNER,
      'enqueueTo(connection) needs a connection from amqplib.connect (best with { recovery: {} }, so it reconnects) or a confirm channel from createConfirmChannel().',
    );
  }
  const t = topology(options);
  const holdMs = positiveOption('holdMs', options.holdMs, DAY_MS, { ...INT, unit: 'ms' });
  const timeoutMs = positiveOption('timeoutMs', options.timeoutMs, 5000, { ...INT, unit: 'ms' });
  const store = options.store;
  if (store !== undefined && typeof store.claim !== 'function') {
    throw optionError(OWNER, "`store` must be the receiver's dedupe store (a DedupeStore).");
  }
  const logger: Logger = options.logger ?? console;
  const channels = new ConfirmChannelSource(amqp, (channel) => assertTopology(channel, t), logger);

  async function hold(key: string, token: string, eventId: string): Promise<void> {
    if (store?.renew === undefined) return;
    try {
      // false: the worker completed it already (or it ran out); either way nothing is left to hold.
      await store.renew(key, token, holdMs);
    } catch (error) {
      logger.warn(`${OWNER}: ${eventId} is queued, but its claim could not be held: ${describe(error)}`);
    }
  }

  const dispatch: Dispatch = async (dispatched) => {
    const { event, claim } = dispatched;
    const work = (async () => {
      const channel = await channels.get();
      await publishConfirmed(channel, '', t.queue, encode(toMessageData(dispatched)), {
        messageId: messageIdFor(event.id),
        type: event.type,
        contentType: 'application/json',
        timestamp: Math.floor(Date.now() / 1000),
      });
    })();
    // Published but not yet confirmed, the message may still be stored: the receiver keeps the claim
    // until the confirm settles (DispatchTimeoutError), as the message would carry it.
    await withTimeout(
      work,
      timeoutMs,
      () =>
        new DispatchTimeoutError(
          `RabbitMQ did not confirm ${event.id.slice(0, 80)} within ${timeoutMs} ms`,
          work,
        ),
    );
    if (claim !== undefined) await hold(claim.key, claim.token, event.id);
  };
  return Object.assign(dispatch, { close: () => channels.close(), keyedByEventId: true });
}
