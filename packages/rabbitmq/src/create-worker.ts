import type { DedupeStore, Logger, Receiver } from '@sms-webhooks/core';
import { createQueueWorker, type WebhookHandlers } from '@sms-webhooks/core/queue';
import { optionError, positiveOption } from '@sms-webhooks/internal';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import { type AmqpConnection, isConnection } from './channel-source.js';
import { consume } from './consumer.js';
import { describe } from './errors.js';
import { decode, HEADERS, type WebhookMessageData } from './message.js';
import { moveMessage } from './move-message.js';
import { retryDelays } from './retry-delays.js';
import { assertRetryQueue, assertTopology, OWNER, type TopologyOptions, topology } from './topology.js';

/** One message as the worker sees it: its data, the runs made before this one, and the AMQP message. */
export interface WebhookMessage {
  /** The message's body: the event and its claim. */
  data: WebhookMessageData;
  /** Runs that failed before this one (0 on the first). */
  runs: number;
  /** The AMQP message as amqplib consumed it (headers, properties). */
  message: ConsumeMessage;
}

export interface CreateWorkerOptions extends TopologyOptions {
  /** A connection from `amqplib.connect`; with `{ recovery: {} }` the worker consumes again after a reconnect. */
  connection: AmqpConnection;
  /** Messages this worker holds unacknowledged, and so runs at once. Default 10. */
  prefetch?: number;
  /** Runs per event before it goes to the failed queue. Default 8. */
  attempts?: number;
  /** Wait before the first retry in ms, doubled for each next one (2, 4, 8 … 128 s), or the list of waits. */
  backoffMs?: number | readonly number[];
  /** Where to complete the dedupe record. Default the receiver's store; with a handler map, none. */
  store?: DedupeStore;
  /** How long a completed event id is remembered. Default the receiver's, or 24 h. */
  retainMs?: number;
  /** The lease the message's claim is renewed to while its handlers run. Default the receiver's, or 5 min. */
  leaseMs?: number;
  /** Called once per event that failed for good (then in the failed queue). Never rethrown. */
  onError?: (error: unknown, message: WebhookMessage) => unknown;
  /**
   * With a map of handlers: how long one job's run may take before it counts as a failed attempt
   * (retried, then reported), its claims let go and `ctx.signal` aborted. Default 2 min; false: none.
   * With a receiver, its own `handlerTimeoutMs` applies (set it there).
   */
  handlerTimeoutMs?: number | false;
  /** Default the receiver's logger, or console. */
  logger?: Logger;
}

/** What `createWorker` resolves with, once it consumes. */
export interface WebhookWorker {
  /** Stops consuming, waits for the messages running here, and closes the worker's channel. */
  close(): Promise<void>;
}

/** Header values are limited by AMQP's 64 KiB table: a long error message is cut. */
const MAX_ERROR_CHARS = 1000;

/**
 * A RabbitMQ consumer that runs the typed handlers for each queued event, with manual acks, `prefetch`
 * messages at a time. A failed run is published to a retry queue that hands it back after the back-off
 * wait; once `attempts` runs failed it goes to the failed queue through the dead-letter exchange, its
 * dedupe claim is released and it is reported. On success the event's dedupe record is completed.
 */
export async function createWorker(
  source: Receiver | WebhookHandlers,
  options: CreateWorkerOptions,
): Promise<WebhookWorker> {
  if (!isConnection(options?.connection)) {
    throw optionError(
      OWNER,
      'createWorker needs `connection`: a connection from amqplib.connect (best with { recovery: {} }, so it consumes again after a reconnect).',
    );
  }
  const t = topology(options);
  const core = createQueueWorker<WebhookMessage>(source, options, {
    owner: OWNER,
    // No job-id dedupe here: a second copy of a message finds the event done, or in flight and waits.
    claims: 'retake',
    advice: 'raise leaseMs above the longest run.',
    failedFor: (message) => `failed after ${message.runs + 1} run(s) and is in ${t.failedQueue}`,
  });
  const INT = { owner: OWNER, integer: true } as const;
  const prefetch = positiveOption('prefetch', options.prefetch, 10, INT);
  const attempts = positiveOption('attempts', options.attempts, 8, INT);
  const delays = retryDelays(attempts, options.backoffMs);
  const deferMs = delays[0] ?? 2000;

  async function handle(channel: ConfirmChannel, msg: ConsumeMessage): Promise<void> {
    const data = decode(msg.content);
    if (data === undefined) {
      core.settings.logger.error(
        `${OWNER}: a message in ${t.queue} is not an event (not JSON, or no event): it goes to ${t.failedQueue}.`,
      );
      return channel.nack(msg, false, false);
    }
    const runs = Number(msg.properties.headers?.[HEADERS.runs] ?? 0) || 0;
    const message: WebhookMessage = { data, runs, message: msg };
    const outcome = await core.run(message);
    if (outcome.action === 'done') return channel.ack(msg);
    if (outcome.action === 'wait') {
      // Whoever holds the claim completes the event or gives it back; this copy looks again after a wait.
      return moveMessage(channel, msg, '', await assertRetryQueue(channel, t, deferMs), {});
    }
    if (runs + 1 < attempts) {
      const wait = delays[runs]!;
      // The claim lives through the wait, so a redelivery meanwhile is answered 409.
      await core.extendClaim(outcome.claim, wait);
      return moveMessage(channel, msg, '', t.retryQueue(wait), { [HEADERS.runs]: runs + 1 });
    }
    await moveMessage(channel, msg, t.deadLetterExchange, t.queue, {
      [HEADERS.runs]: runs + 1,
      [HEADERS.error]: describe(outcome.error).slice(0, MAX_ERROR_CHARS),
      [HEADERS.failedAt]: Date.now(),
    });
    await core.giveUp(message, outcome.error, outcome.claim);
  }

  const consumer = await consume({
    connection: options.connection,
    topology: t,
    prefetch,
    logger: core.settings.logger,
    async setUp(channel) {
      await assertTopology(channel, t);
      for (const wait of new Set([...delays, deferMs])) await assertRetryQueue(channel, t, wait);
    },
    handle,
    track: (work) => void core.track(work),
  });
  return { close: () => consumer.close(() => core.drain()) };
}
