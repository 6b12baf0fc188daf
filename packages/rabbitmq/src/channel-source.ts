import type { Logger } from '@sms-webhooks/core';
import type { ChannelModel, ConfirmChannel, RecoveringChannelModel } from 'amqplib';
import { describe, RabbitHandOffError } from './errors.js';
import { OWNER } from './topology.js';

/**
 * What the package publishes through: a connection from `amqplib.connect` (with `{ recovery }` it
 * reconnects by itself, and is the one to use), or a confirm channel you opened. A plain connection or
 * a channel that closes is not reopened: answers are 503 from then on.
 */
export type AmqpConnection = ChannelModel | RecoveringChannelModel;
/** What {@link enqueueTo} publishes through: a connection (it opens and reopens its own confirm channel), or a confirm channel. */
export type AmqpSource = AmqpConnection | ConfirmChannel;

export function isConfirmChannel(source: unknown): source is ConfirmChannel {
  return typeof (source as ConfirmChannel | null)?.waitForConfirms === 'function';
}

export function isConnection(source: unknown): source is AmqpConnection {
  return typeof (source as ChannelModel | null)?.createConfirmChannel === 'function';
}

function isRecovering(source: AmqpConnection): source is RecoveringChannelModel {
  return typeof (source as RecoveringChannelModel).waitForConnect === 'function';
}

const disconnected = (why: string) =>
  new RabbitHandOffError('ERR_SMS_RABBITMQ_DISCONNECTED', `no connection to RabbitMQ: ${why}.`);

/**
 * One confirm channel, opened when first needed and again after it closed while the connection lives.
 * While the connection is down `get()` rejects at once (ERR_SMS_RABBITMQ_DISCONNECTED), so the receiver
 * answers 503 without waiting for `timeoutMs`.
 */
export class ConfirmChannelSource {
  #channel: Promise<ConfirmChannel> | undefined;
  #down: string | undefined;
  #closed = false;
  readonly #owned: boolean;
  readonly #cleanUp: (() => void)[] = [];

  constructor(
    readonly source: AmqpSource,
    readonly setUp: (channel: ConfirmChannel) => Promise<void>,
    readonly logger: Logger,
    readonly onChannel?: (channel: ConfirmChannel) => void,
  ) {
    this.#owned = !isConfirmChannel(source);
    if (isConfirmChannel(source)) return;
    const listen = <A extends unknown[]>(event: string, fn: (...args: A) => void) => {
      source.on(event, fn);
      this.#cleanUp.push(() => source.off(event, fn));
    };
    if (isRecovering(source)) {
      listen('disconnect', (error: Error) => {
        this.#down = `the connection was lost (${describe(error)}) and amqplib is reconnecting`;
        this.#channel = undefined;
      });
      listen('connect', () => {
        this.#down = undefined;
      });
      listen('reconnect-failed', () => {
        this.#down = 'amqplib gave up reconnecting (its recovery maxRetries)';
      });
    } else {
      listen('close', () => {
        this.#down =
          'the connection closed; connect with amqplib.connect(url, { recovery: {} }) to have it reopened';
        this.#channel = undefined;
      });
    }
    // Without a listener an 'error' event would end the process; 'close' follows it.
    listen('error', (error: Error) => this.logger.error(`${OWNER}: connection error: ${describe(error)}`));
  }

  /** Whether the connection is known to be down right now. */
  get down(): boolean {
    return this.#down !== undefined;
  }

  get(): Promise<ConfirmChannel> {
    if (this.#closed) return Promise.reject(disconnected('the hand-off was closed'));
    if (this.#down !== undefined) return Promise.reject(disconnected(this.#down));
    this.#channel ??= this.#open();
    return this.#channel;
  }

  #open(): Promise<ConfirmChannel> {
    const source = this.source;
    const opening = (async () => {
      const channel = isConfirmChannel(source) ? source : await source.createConfirmChannel();
      channel.on('error', (error: Error) => this.logger.error(`${OWNER}: channel error: ${describe(error)}`));
      channel.once('close', () => {
        if (this.#channel === current) this.#channel = undefined;
        if (isConfirmChannel(source)) this.#down = 'the confirm channel it was given closed';
      });
      await this.setUp(channel);
      this.onChannel?.(channel);
      return channel;
    })();
    const current: Promise<ConfirmChannel> = opening.catch((error: unknown) => {
      if (this.#channel === current) this.#channel = undefined;
      throw error;
    });
    return current;
  }

  /** Closes the channel this source opened (never a connection or a channel it was given). */
  async close(): Promise<void> {
    this.#closed = true;
    for (const off of this.#cleanUp) off();
    const channel = this.#channel;
    this.#channel = undefined;
    if (!this.#owned || channel === undefined) return;
    await channel.then((c) => c.close()).catch(() => {});
  }
}
