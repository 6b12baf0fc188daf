import { createHash } from 'node:crypto';
import type { ConfirmChannel, Message, Options } from 'amqplib';
import { RabbitHandOffError } from './errors.js';

/** AMQP's `message-id` is a short string: at most 255 bytes. */
const MAX_MESSAGE_ID_BYTES = 255;

/**
 * The message id for an event id: the event id itself, or `sha256-<hex>` of it when it is longer than
 * AMQP's 255 bytes. Event ids start with `evt_`, so the two forms cannot collide.
 */
export function messageIdFor(eventId: string): string {
  if (Buffer.byteLength(eventId, 'utf8') <= MAX_MESSAGE_ID_BYTES) return eventId;
  return `sha256-${createHash('sha256').update(eventId, 'utf8').digest('hex')}`;
}

const returnsOf = new WeakMap<ConfirmChannel, Map<string, number>>();

/**
 * Counts the messages the broker returned as unroutable on this channel. A `basic.return` arrives
 * before the `basic.ack` of the same message, so a publish's confirm callback can look it up.
 */
export function watchReturns(channel: ConfirmChannel): void {
  if (returnsOf.has(channel)) return;
  const returned = new Map<string, number>();
  returnsOf.set(channel, returned);
  channel.on('return', (message: Message) => {
    const id = String(message.properties.messageId);
    returned.set(id, (returned.get(id) ?? 0) + 1);
  });
}

function takeReturn(channel: ConfirmChannel, messageId: string): boolean {
  const returned = returnsOf.get(channel);
  const count = returned?.get(messageId);
  if (count === undefined) return false;
  if (count === 1) returned!.delete(messageId);
  else returned!.set(messageId, count - 1);
  return true;
}

/**
 * Publishes a persistent, mandatory message and resolves once the broker confirmed it: acked and routed
 * to a queue. A nack, a return (no queue), or the channel closing first reject.
 */
export function publishConfirmed(
  channel: ConfirmChannel,
  exchange: string,
  routingKey: string,
  content: Buffer,
  options: Options.Publish & { messageId: string },
): Promise<void> {
  watchReturns(channel);
  return new Promise<void>((resolve, reject) => {
    const confirmed = (error: unknown) => {
      const unroutable = takeReturn(channel, options.messageId);
      if (error !== null && error !== undefined) {
        const closed = (error as Error).message?.includes('closed');
        reject(
          closed
            ? new RabbitHandOffError(
                'ERR_SMS_RABBITMQ_DISCONNECTED',
                `the channel closed before RabbitMQ confirmed ${options.messageId.slice(0, 80)}.`,
                { cause: error },
              )
            : new RabbitHandOffError(
                'ERR_SMS_RABBITMQ_NACKED',
                `RabbitMQ did not take ${options.messageId.slice(0, 80)} (nack).`,
                { cause: error },
              ),
        );
      } else if (unroutable) {
        reject(
          new RabbitHandOffError(
            'ERR_SMS_RABBITMQ_UNROUTABLE',
            `${options.messageId.slice(0, 80)} reached no queue: ${routingKey.slice(0, 80)} is missing.`,
          ),
        );
      } else resolve();
    };
    try {
      channel.publish(
        exchange,
        routingKey,
        content,
        { ...options, persistent: true, mandatory: true },
        confirmed,
      );
    } catch (error) {
      // amqplib throws at once on a closed channel.
      reject(
        new RabbitHandOffError('ERR_SMS_RABBITMQ_DISCONNECTED', 'the channel to RabbitMQ is closed.', {
          cause: error,
        }),
      );
    }
  });
}
