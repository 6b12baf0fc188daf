import { randomUUID } from 'node:crypto';
import { type DedupeStore, type Logger, type Receiver, WebhookHandlerError } from '@sms-webhooks/core';
import {
  type AdapterReceiver,
  type DispatchClaim,
  LeaseKeeper,
  optionError,
  positiveOption,
  recordCompletion,
  toRunHandlers,
  type WebhookHandlers,
} from '@sms-webhooks/core/queue';
import type { ConfirmChannel, ConsumeMessage, MessagePropertyHeaders } from 'amqplib';
import { type AmqpConnection, ConfirmChannelSource, isConnection } from './channel-source.js';
import { describe } from './errors.js';
import { decode, HEADERS, toHandlerContext, type WebhookMessageData } from './message.js';
import { publishConfirmed } from './publish.js';
import { retryDelays } from './retry-delays.js';
import { assertRetryQueue, assertTopology, OWNER, type TopologyOptions, topology } from './topology.js';

/** One message as the worker sees it: its data, the runs made before this one, and the AMQP message. */
export interface WebhookMessage {
  data: WebhookMessageData;
  /** Runs that failed before this one (0 on the first). */
  runs: number;
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

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_LEASE_MS = 5 * 60 * 1000;
/** After a channel closed on a live connection (a channel error), the worker opens another after this. */
const REOPEN_MS = 1000;
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
  const run = toRunHandlers(source, OWNER, { handlerTimeoutMs: options.handlerTimeoutMs });
  const receiver =
    typeof (source as AdapterReceiver).runHandlers === 'function' ? (source as AdapterReceiver) : undefined;
  const t = topology(options);
  const INT = { owner: OWNER, integer: true } as const;
  const prefetch = positiveOption('prefetch', options.prefetch, 10, INT);
  const attempts = positiveOption('attempts', options.attempts, 8, INT);
  const delays = retryDelays(attempts, options.backoffMs);
  const deferMs = delays[0] ?? 2000;
  const store = options.store ?? receiver?.options.store;
  const retainMs = options.retainMs ?? receiver?.options.retainMs ?? DAY_MS;
  const leaseMs = positiveOption('leaseMs', options.leaseMs ?? receiver?.options.leaseMs, DEFAULT_LEASE_MS, {
    ...INT,
    unit: 'ms',
  });
  const logger: Logger = options.logger ?? receiver?.options.logger ?? console;
  const leases = store === undefined ? undefined : new LeaseKeeper(store, leaseMs, logger);
  const running = new Set<Promise<void>>();
  let closing = false;
  let warnedNoStore = false;
  let consumer: { channel: ConfirmChannel; tag: string } | undefined;
  let reopen: ReturnType<typeof setTimeout> | undefined;

  /**
   * The claim this run holds: the message's own (renewed), or a fresh one when that ran out. `completed`:
   * another copy of the message ran it already; `in-flight`: another copy or delivery holds it right now.
   */
  async function takeClaim(
    data: WebhookMessageData,
  ): Promise<DispatchClaim | 'completed' | 'in-flight' | undefined> {
    if (store === undefined) {
      if (data.claim && !warnedNoStore) {
        warnedNoStore = true;
        logger.warn(
          `${OWNER}: messages carry dedupe claims but this worker has no \`store\`; pass the receiver's.`,
        );
      }
      return undefined;
    }
    const key = data.claim?.key ?? data.event.id;
    try {
      if (data.claim !== undefined) {
        if (store.renew === undefined) return data.claim;
        if (await store.renew(key, data.claim.token, leaseMs)) return data.claim;
      }
      const token = randomUUID();
      const claimed = await store.claim(key, token, leaseMs);
      return claimed === 'claimed' ? { key, token } : claimed;
    } catch (error) {
      // The store is down: run all the same (handlers are idempotent by event id), as the other hand-offs do.
      logger.error(`${OWNER}: could not check the claim on ${data.event.id}: ${describe(error)}`);
      return undefined;
    }
  }

  async function complete(claim: DispatchClaim | undefined, data: WebhookMessageData): Promise<void> {
    if (store === undefined || claim === undefined) return;
    const job = { key: claim.key, token: claim.token, eventId: data.event.id };
    await recordCompletion(store, job, retainMs, logger, OWNER, 'raise leaseMs above the longest run.');
  }

  async function report(error: unknown, message: WebhookMessage): Promise<void> {
    const { event } = message.data;
    if (options.onError !== undefined) return void (await options.onError(error, message));
    if (typeof receiver?.reportError === 'function') {
      const handlerError =
        (error as Partial<WebhookHandlerError> | null)?.code === 'handler_failed'
          ? (error as WebhookHandlerError)
          : new WebhookHandlerError([error], event);
      return receiver.reportError(handlerError);
    }
    logger.error(
      `${OWNER}: ${event.type} ${event.id} failed after ${message.runs + 1} run(s) and is in ${t.failedQueue}: ${describe(error)}`,
    );
  }

  function headersFor(msg: ConsumeMessage, extra: MessagePropertyHeaders): MessagePropertyHeaders {
    const {
      'x-death': _death,
      'x-first-death-exchange': _e,
      'x-first-death-queue': _q,
      'x-first-death-reason': _r,
      ...own
    } = msg.properties.headers ?? {};
    return { ...own, ...extra };
  }

  /** A copy of the message to `routingKey` through `exchange`, confirmed; then the original is acked. */
  async function moveTo(
    channel: ConfirmChannel,
    msg: ConsumeMessage,
    exchange: string,
    routingKey: string,
    headers: MessagePropertyHeaders,
  ): Promise<void> {
    const p = msg.properties;
    await publishConfirmed(channel, exchange, routingKey, msg.content, {
      messageId: String(p.messageId),
      type: p.type,
      contentType: p.contentType,
      timestamp: p.timestamp,
      headers: headersFor(msg, headers),
    });
    channel.ack(msg);
  }

  async function handle(channel: ConfirmChannel, msg: ConsumeMessage): Promise<void> {
    const data = decode(msg.content);
    if (data === undefined) {
      logger.error(
        `${OWNER}: a message in ${t.queue} is not an event (not JSON, or no event): it goes to ${t.failedQueue}.`,
      );
      return channel.nack(msg, false, false);
    }
    const runs = Number(msg.properties.headers?.[HEADERS.runs] ?? 0) || 0;
    const claim = await takeClaim(data);
    if (claim === 'completed') return channel.ack(msg);
    if (claim === 'in-flight') {
      // Whoever holds the claim completes the event or gives it back; this copy looks again after a wait.
      const queue = await assertRetryQueue(channel, t, deferMs);
      return moveTo(channel, msg, '', queue, {});
    }
    const lease = claim === undefined ? undefined : leases?.hold(claim.key, claim.token);
    let failure: { error: unknown } | undefined;
    try {
      await run(data.event, toHandlerContext(data), data.traceContext);
    } catch (error) {
      failure = { error };
    } finally {
      leases?.release(lease);
    }
    if (failure === undefined) {
      await complete(claim, data);
      return channel.ack(msg);
    }
    const message: WebhookMessage = { data, runs, message: msg };
    const error = failure.error;
    if (runs + 1 < attempts) {
      const wait = delays[runs]!;
      // The claim lives through the wait, so a redelivery meanwhile is answered 409.
      if (claim !== undefined)
        await Promise.resolve(store?.renew?.(claim.key, claim.token, wait + leaseMs)).catch(() => {});
      return moveTo(channel, msg, '', t.retryQueue(wait), { [HEADERS.runs]: runs + 1 });
    }
    await moveTo(channel, msg, t.deadLetterExchange, t.queue, {
      [HEADERS.runs]: runs + 1,
      [HEADERS.error]: describe(error).slice(0, MAX_ERROR_CHARS),
      [HEADERS.failedAt]: Date.now(),
    });
    if (store !== undefined && claim !== undefined) {
      await Promise.resolve()
        .then(() => store.release(claim.key, claim.token))
        .catch((e) => logger.error(`${OWNER}: could not release ${data.event.id}: ${describe(e)}`));
    }
    await report(error, message).catch((e) =>
      logger.error(`${OWNER}: an onError hook failed: ${describe(e)}`),
    );
  }

  function onMessage(channel: ConfirmChannel, msg: ConsumeMessage | null): void {
    if (msg === null) {
      // The broker cancelled the consumer (its queue was deleted): consume again on a fresh channel.
      logger.error(`${OWNER}: RabbitMQ cancelled the consumer of ${t.queue}.`);
      void channel.close().catch(() => {});
      return;
    }
    const work = handle(channel, msg).catch((error) => {
      // The channel closed under it (the broker requeues what was not acked), or a publish failed.
      logger.error(`${OWNER}: ${msg.properties.messageId} stays queued: ${describe(error)}`);
      try {
        channel.nack(msg, false, true);
      } catch {}
    });
    running.add(work);
    void work.finally(() => running.delete(work));
  }

  const channels = new ConfirmChannelSource(
    options.connection,
    async (channel) => {
      await assertTopology(channel, t);
      for (const wait of new Set([...delays, deferMs])) await assertRetryQueue(channel, t, wait);
      await channel.prefetch(prefetch);
      const { consumerTag } = await channel.consume(t.queue, (msg) => onMessage(channel, msg), {
        noAck: false,
      });
      consumer = { channel, tag: consumerTag };
      channel.once('close', () => {
        if (consumer?.channel === channel) consumer = undefined;
        scheduleReopen();
      });
    },
    logger,
  );

  function scheduleReopen(): void {
    if (closing || reopen !== undefined) return;
    reopen = setTimeout(() => {
      reopen = undefined;
      if (closing) return;
      // While a recovering connection is down, its 'connect' event reopens instead; a plain one stays closed.
      if (channels.down && !recovers) {
        logger.error(
          `${OWNER}: the connection closed, so this worker stopped consuming ${t.queue}; connect with amqplib.connect(url, { recovery: {} }) to have it consume again after a reconnect.`,
        );
        return;
      }
      if (!channels.down) {
        channels.get().catch((error) => {
          logger.error(`${OWNER}: could not consume ${t.queue} again: ${describe(error)}`);
          scheduleReopen();
        });
      }
    }, REOPEN_MS);
  }

  const recovers = typeof (options.connection as { waitForConnect?: unknown }).waitForConnect === 'function';
  const onConnect = () => {
    if (!closing)
      channels
        .get()
        .catch((error) =>
          logger.error(`${OWNER}: could not consume ${t.queue} after a reconnect: ${describe(error)}`),
        );
  };
  options.connection.on('connect', onConnect);
  try {
    await channels.get();
  } catch (error) {
    options.connection.off('connect', onConnect);
    await channels.close();
    throw error;
  }

  return {
    async close() {
      closing = true;
      clearTimeout(reopen);
      options.connection.off('connect', onConnect);
      const current = consumer;
      if (current !== undefined) await current.channel.cancel(current.tag).catch(() => {});
      while (running.size > 0) await Promise.allSettled([...running]);
      await channels.close();
    },
  };
}
