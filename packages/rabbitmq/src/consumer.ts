import type { Logger } from '@sms-webhooks/core';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import { type AmqpConnection, ConfirmChannelSource } from './channel-source.js';
import { describe } from './errors.js';
import { OWNER, type Topology } from './topology.js';

/** After a channel closed on a live connection (a channel error), the worker opens another after this. */
const REOPEN_MS = 1000;

export interface ConsumerOptions {
  connection: AmqpConnection;
  topology: Topology;
  prefetch: number;
  logger: Logger;
  /** Declares the queues on each new channel, before it consumes. */
  setUp(channel: ConfirmChannel): Promise<void>;
  /** Handles one message: settles it (ack, nack or move) itself; a rejection leaves it queued. */
  handle(channel: ConfirmChannel, msg: ConsumeMessage): Promise<void>;
  /** Work that `close` waits for. */
  track(work: Promise<void>): void;
}

/** Hands a delivery to `o.handle`, requeued if that fails; `null`: the broker cancelled the consumer. */
function onMessage(o: ConsumerOptions, channel: ConfirmChannel, msg: ConsumeMessage | null): void {
  const { topology: t, logger } = o;
  if (msg === null) {
    // The broker cancelled the consumer (its queue was deleted): consume again on a fresh channel.
    logger.error(`${OWNER}: RabbitMQ cancelled the consumer of ${t.queue}.`);
    void channel.close().catch(() => {});
    return;
  }
  o.track(
    o.handle(channel, msg).catch((error) => {
      // The channel closed under it (the broker requeues what was not acked), or a publish failed.
      logger.error(`${OWNER}: ${msg.properties.messageId} stays queued: ${describe(error)}`);
      try {
        channel.nack(msg, false, true);
      } catch {}
    }),
  );
}

/**
 * Consumes the work queue on a confirm channel of its own, again on a fresh channel when the broker
 * cancels it or the channel closes, and after a reconnect of a recovering connection. Resolves once it
 * consumes; `close(drain)` stops consuming, waits for `drain`, then closes the channel.
 */
export async function consume(
  o: ConsumerOptions,
): Promise<{ close(drain: () => Promise<void>): Promise<void> }> {
  const { connection, topology: t, logger } = o;
  let closing = false;
  let consumer: { channel: ConfirmChannel; tag: string } | undefined;
  let reopen: ReturnType<typeof setTimeout> | undefined;

  const channels = new ConfirmChannelSource(
    connection,
    async (channel) => {
      await o.setUp(channel);
      await channel.prefetch(o.prefetch);
      const { consumerTag } = await channel.consume(t.queue, (msg) => onMessage(o, channel, msg), {
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

  const recovers = typeof (connection as { waitForConnect?: unknown }).waitForConnect === 'function';
  const onConnect = () => {
    if (!closing)
      channels
        .get()
        .catch((error) =>
          logger.error(`${OWNER}: could not consume ${t.queue} after a reconnect: ${describe(error)}`),
        );
  };
  connection.on('connect', onConnect);
  try {
    await channels.get();
  } catch (error) {
    connection.off('connect', onConnect);
    await channels.close();
    throw error;
  }

  return {
    async close(drain) {
      closing = true;
      clearTimeout(reopen);
      connection.off('connect', onConnect);
      const current = consumer;
      if (current !== undefined) await current.channel.cancel(current.tag).catch(() => {});
      await drain();
      await channels.close();
    },
  };
}
