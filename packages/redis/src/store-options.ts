import { positiveOption } from '@sms-webhooks/internal';
import { RedisStoreError } from './errors.js';
import { type ClientType, fromClient, fromSendCommand, type SendCommand } from './send-command.js';
import type { StoreContext } from './store-context.js';

/** The key prefix when none is given. */
export const DEFAULT_PREFIX = 'sms-webhooks:';
/** How long one Redis command may take, when `commandTimeoutMs` is not given. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 1000;

/** The options every {@link RedisStoreOptions} form shares. */
export interface RedisStoreCommonOptions {
  /** Prepended to every key. Default 'sms-webhooks:'. Give each app its own when they share a Redis. */
  prefix?: string;
  /**
   * Longest wait for one store operation, in ms. Default 1000. A slower or unreachable Redis makes the
   * operation reject, so the receiver answers 503 (or processes without dedupe) instead of hanging.
   * `Infinity` turns the limit off (then the client's own time-outs apply).
   */
  commandTimeoutMs?: number;
}

/** A {@link RedisStore} on a client object: ioredis or node-redis, named by `clientType`. */
export interface RedisStoreClientOptions extends RedisStoreCommonOptions {
  /** An ioredis `Redis`/`Cluster`, a node-redis v4/v5 client or cluster. Never closed by the store. */
  client: unknown;
  /** Which of those `client` is. Required: the store does not guess from the object's shape. */
  clientType: ClientType;
  /** Not with `client`. */
  sendCommand?: never;
}

/** A {@link RedisStore} on one function that sends a command, for a client the store has no `clientType` for. */
export interface RedisStoreSendCommandOptions extends RedisStoreCommonOptions {
  /** `(...args) => redis.call(...args)` (ioredis) or `(...args) => client.sendCommand(args)` (node-redis). */
  sendCommand: SendCommand;
  /** Not with `sendCommand`. */
  client?: never;
  /** Not with `sendCommand`. */
  clientType?: never;
}

/** `new RedisStore(options)`: a `client` with its `clientType`, or a `sendCommand` function. */
export type RedisStoreOptions = RedisStoreClientOptions | RedisStoreSendCommandOptions;

/** A cluster client: an event and its object hash to different slots, so no script can take both. */
function isCluster(options: RedisStoreOptions): boolean {
  if (options.client === undefined) return false;
  if (options.clientType === 'node-redis-cluster') return true;
  return (options.client as { isCluster?: unknown } | null)?.isCluster === true; // ioredis' Cluster
}

/** `ms` as PX takes it; throws RedisStoreError unless it is a positive number. */
export function duration(name: string, ms: number): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
    throw new RedisStoreError(
      'ERR_SMS_REDIS_OPTIONS',
      `${name} must be a positive number of ms, got ${String(ms)}.`,
    );
  }
  // PX takes whole milliseconds; round up so a lease is never shorter than asked.
  return String(Math.ceil(ms));
}

const OWNER = '@sms-webhooks/redis';

/** core's positiveOption (Infinity: no bound), thrown as a RedisStoreError like every option mistake here. */
function timeoutOption(name: string, value: unknown): number {
  if (value === Number.POSITIVE_INFINITY) return value;
  try {
    return positiveOption(name, value, DEFAULT_COMMAND_TIMEOUT_MS, {
      owner: OWNER,
      unit: 'ms (or Infinity)',
      code: 'ERR_SMS_REDIS_OPTIONS',
    });
  } catch (error) {
    throw new RedisStoreError('ERR_SMS_REDIS_OPTIONS', (error as Error).message.slice(OWNER.length + 2));
  }
}

/** Checks `options` and makes what the store's operations work with: throws RedisStoreError on a mistake. */
export function storeContext(options: RedisStoreOptions): StoreContext {
  if (typeof options !== 'object' || options === null) {
    throw new RedisStoreError(
      'ERR_SMS_REDIS_OPTIONS',
      "pass options: new RedisStore({ client, clientType: 'ioredis' }) or new RedisStore({ sendCommand }).",
    );
  }
  const { prefix = DEFAULT_PREFIX, commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS } = options;
  if (options.client !== undefined && options.sendCommand !== undefined) {
    throw new RedisStoreError('ERR_SMS_REDIS_OPTIONS', 'pass either client or sendCommand, not both.');
  }
  if (typeof prefix !== 'string') {
    throw new RedisStoreError('ERR_SMS_REDIS_OPTIONS', `prefix must be a string, got ${typeof prefix}.`);
  }
  return {
    prefix,
    commandTimeoutMs: timeoutOption('commandTimeoutMs', commandTimeoutMs),
    send:
      options.client !== undefined
        ? fromClient(options.client, options.clientType)
        : fromSendCommand(options.sendCommand),
    oneStep: !isCluster(options),
  };
}
