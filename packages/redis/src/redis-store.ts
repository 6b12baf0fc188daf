import type { DedupeStore } from '@sms-webhooks/core';
import type {
  ClaimWithOrderResult,
  ObjectSlot,
  OrderClaimResult,
  StoredEvent,
} from '@sms-webhooks/core/store';
import {
  type ClaimResult,
  claimThenOrder,
  isKeptDelivery,
  type KeptDelivery,
} from '@sms-webhooks/core/store';
import { positiveOption, withTimeout } from '@sms-webhooks/internal';
import { RedisStoreError } from './errors.js';
import { keptKey, orderKey, storedKey } from './event-key.js';
import {
  CLAIM,
  CLAIM_ORDER,
  CLAIM_WITH_ORDER,
  COMPLETE,
  COMPLETE_ORDER,
  COMPLETE_WITH_ORDER,
  INSPECT,
  type LuaScript,
  RELEASE,
  RELEASE_ORDER,
  RENEW,
  RENEW_ORDER,
} from './scripts.js';
import {
  type ClientType,
  fromClient,
  fromSendCommand,
  type KeyedSendCommand,
  type SendCommand,
} from './send-command.js';

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

const CLAIM_RESULTS = new Set<string>(['claimed', 'in-flight', 'completed']);
const ORDER_RESULTS = new Set<string>(['claimed', 'stale', 'in-flight']);
const BOTH_RESULTS = new Set<string>(['claimed', 'in-flight', 'completed', 'stale', 'object-in-flight']);

function text(reply: unknown): unknown {
  return reply instanceof Uint8Array ? Buffer.from(reply).toString('utf8') : reply;
}

function isCrossSlot(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /^(ERR )?CROSSSLOT\b/.test(message);
}

/** A cluster client: an event and its object hash to different slots, so no script can take both. */
function isCluster(options: RedisStoreOptions): boolean {
  if (options.client === undefined) return false;
  if (options.clientType === 'node-redis-cluster') return true;
  return (options.client as { isCluster?: unknown } | null)?.isCluster === true; // ioredis' Cluster
}

function isNoScript(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /^(ERR )?NOSCRIPT\b/.test(message);
}

function duration(name: string, ms: number): string {
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

/**
 * A DedupeStore shared by every app instance that talks to the same Redis. Each operation is one
 * atomic Lua script on one key (see scripts.ts), run with EVALSHA and sent as EVAL only after NOSCRIPT.
 */
export class RedisStore implements DedupeStore {
  readonly localKeys = false;
  /** The prefix before every key, as given or {@link DEFAULT_PREFIX}. */
  readonly prefix: string;
  /** How long one store operation may take before it rejects with `ERR_SMS_REDIS_TIMEOUT`. */
  readonly commandTimeoutMs: number;
  readonly #send: KeyedSendCommand;
  /** Whether `claimWithOrder` is one script (false on a cluster, or once Redis answered CROSSSLOT). */
  #oneStep: boolean;

  constructor(options: RedisStoreOptions) {
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
    this.prefix = prefix;
    this.commandTimeoutMs = timeoutOption('commandTimeoutMs', commandTimeoutMs);
    this.#send =
      options.client !== undefined
        ? fromClient(options.client, options.clientType)
        : fromSendCommand(options.sendCommand);
    this.#oneStep = !isCluster(options);
  }

  /** The Redis key an event id is stored under. */
  keyFor(id: string): string {
    return storedKey(this.prefix, id);
  }

  async claim(key: string, token: string, leaseMs: number): Promise<ClaimResult> {
    const work = this.#run(CLAIM, key, [token, duration('leaseMs', leaseMs)]);
    let reply: unknown;
    try {
      reply = text(await this.#bounded(work, CLAIM, key));
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code === 'ERR_SMS_REDIS_TIMEOUT') {
        this.#undoLateClaim(work, key, token);
      }
      throw error;
    }
    if (typeof reply !== 'string' || !CLAIM_RESULTS.has(reply)) throw this.#badReply(CLAIM, reply);
    return reply as ClaimResult;
  }

  async complete(key: string, token: string, retainMs: number): Promise<boolean> {
    const work = this.#run(COMPLETE, key, [token, duration('retainMs', retainMs)]);
    return this.#flag(COMPLETE, await this.#bounded(work, COMPLETE, key));
  }

  async release(key: string, token: string): Promise<boolean> {
    return this.#flag(RELEASE, await this.#bounded(this.#run(RELEASE, key, [token]), RELEASE, key));
  }

  async claimOrder(key: string, version: string, token: string, leaseMs: number): Promise<OrderClaimResult> {
    const redisKey = orderKey(this.prefix, key);
    const work = this.#runOn(CLAIM_ORDER, [redisKey], [version, token, duration('leaseMs', leaseMs)]);
    const reply = text(await this.#bounded(work, CLAIM_ORDER, key));
    if (typeof reply !== 'string' || !ORDER_RESULTS.has(reply)) throw this.#badReply(CLAIM_ORDER, reply);
    return reply as OrderClaimResult;
  }

  /**
   * `claim` and `claimOrder` in one script, one round trip (see DedupeStore.claimWithOrder). On Redis
   * Cluster the event and its object live in different slots: there it is the two calls.
   */
  async claimWithOrder(
    key: string,
    token: string,
    leaseMs: number,
    object: ObjectSlot,
  ): Promise<ClaimWithOrderResult> {
    if (!this.#oneStep) return claimThenOrder(this, key, token, leaseMs, object);
    const keys = [this.keyFor(key), orderKey(this.prefix, object.key)];
    const args = [token, duration('leaseMs', leaseMs), object.version, duration('retainMs', object.retainMs)];
    const work = this.#runOn(CLAIM_WITH_ORDER, keys, args);
    let reply: unknown;
    try {
      reply = text(await this.#bounded(work, CLAIM_WITH_ORDER, key));
    } catch (error) {
      if (isCrossSlot(error)) {
        // A cluster behind sendCommand: nothing ran; from now on, the two calls.
        this.#oneStep = false;
        return claimThenOrder(this, key, token, leaseMs, object);
      }
      if ((error as { code?: unknown } | null)?.code === 'ERR_SMS_REDIS_TIMEOUT') {
        this.#undoLateClaim(work, key, token, object.key);
      }
      throw error;
    }
    if (typeof reply !== 'string' || !BOTH_RESULTS.has(reply)) throw this.#badReply(CLAIM_WITH_ORDER, reply);
    return reply as ClaimWithOrderResult;
  }

  /** `completeOrder` and `complete` in one script (see DedupeStore.completeWithOrder); two on a cluster. */
  async completeWithOrder(
    key: string,
    token: string,
    retainMs: number,
    object: { key: string; version: string },
  ): Promise<boolean> {
    if (this.#oneStep) {
      const keys = [this.keyFor(key), orderKey(this.prefix, object.key)];
      const work = this.#runOn(COMPLETE_WITH_ORDER, keys, [
        token,
        duration('retainMs', retainMs),
        object.version,
      ]);
      try {
        return this.#flag(COMPLETE_WITH_ORDER, await this.#bounded(work, COMPLETE_WITH_ORDER, key));
      } catch (error) {
        if (!isCrossSlot(error)) throw error;
        this.#oneStep = false;
      }
    }
    await this.completeOrder(object.key, object.version, token, retainMs);
    return this.complete(key, token, retainMs);
  }

  async completeOrder(key: string, version: string, token: string, retainMs: number): Promise<boolean> {
    const redisKey = orderKey(this.prefix, key);
    const work = this.#runOn(COMPLETE_ORDER, [redisKey], [version, token, duration('retainMs', retainMs)]);
    return this.#flag(COMPLETE_ORDER, await this.#bounded(work, COMPLETE_ORDER, key));
  }

  async releaseOrder(key: string, token: string): Promise<boolean> {
    const work = this.#runOn(RELEASE_ORDER, [orderKey(this.prefix, key)], [token]);
    return this.#flag(RELEASE_ORDER, await this.#bounded(work, RELEASE_ORDER, key));
  }

  async renewOrder(key: string, token: string, leaseMs: number): Promise<boolean> {
    const work = this.#runOn(
      RENEW_ORDER,
      [orderKey(this.prefix, key)],
      [token, duration('leaseMs', leaseMs)],
    );
    return this.#flag(RENEW_ORDER, await this.#bounded(work, RENEW_ORDER, key));
  }

  async renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    const work = this.#run(RENEW, key, [token, duration('leaseMs', leaseMs)]);
    return this.#flag(RENEW, await this.#bounded(work, RENEW, key));
  }

  /** What Redis holds for the event id `key` (see DedupeStore.inspect), its expiry on Redis's clock. */
  async inspect(key: string): Promise<StoredEvent | undefined> {
    return this.#stored(await this.#bounded(this.#run(INSPECT, key, []), INSPECT, key));
  }

  /**
   * Keeps a delivery under `<prefix>kept:<id>` for `retainMs` (see DedupeStore.keepDelivery): one SET,
   * sent beside the claim's script, so the two share the round trip.
   */
  async keepDelivery(key: string, delivery: KeptDelivery, retainMs: number): Promise<void> {
    const redisKey = keptKey(this.prefix, key);
    const work = this.#send(redisKey, [
      'SET',
      redisKey,
      JSON.stringify(delivery),
      'PX',
      duration('retainMs', retainMs),
    ]);
    await this.#bounded(work, 'keepDelivery', key);
  }

  async keptDelivery(key: string): Promise<KeptDelivery | undefined> {
    const redisKey = keptKey(this.prefix, key);
    const reply = await this.#bounded(this.#send(redisKey, ['GET', redisKey]), 'keptDelivery', key);
    if (reply === null || reply === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(text(reply)));
    } catch {
      parsed = undefined;
    }
    if (!isKeptDelivery(parsed)) {
      throw new RedisStoreError(
        'ERR_SMS_REDIS_REPLY',
        `${redisKey.slice(0, 120)} does not hold a kept delivery.`,
      );
    }
    return parsed;
  }

  /**
   * `inspect` of many keys, answers in the order given (see DedupeStore.inspectMany). The scripts go out
   * together, so the client writes them back to back (a pipeline, each routed to its node on a cluster),
   * and one time limit covers the batch.
   */
  async inspectMany(keys: readonly string[]): Promise<Array<StoredEvent | undefined>> {
    if (keys.length === 0) return [];
    const replies = await this.#bounded(
      Promise.all(keys.map((key) => this.#run(INSPECT, key, []))),
      INSPECT,
      `${keys.length} keys from ${keys[0]}`,
    );
    return (replies as unknown[]).map((reply) => this.#stored(reply));
  }

  #stored(reply: unknown): StoredEvent | undefined {
    if (reply === null || reply === false || reply === undefined) return undefined;
    const [kind, ttl, time] = Array.isArray(reply) ? reply.map(text) : [];
    const left = Number(ttl);
    // PTTL -1 (no expiry) never happens for our keys; -2 (gone between the reads) cannot, in one script.
    if ((kind !== 'p' && kind !== 'c') || !Number.isFinite(left) || left < 0)
      throw this.#badReply(INSPECT, reply);
    return { state: kind === 'c' ? 'completed' : 'in-flight', expiresAt: Number(time) + left };
  }

  /**
   * The receiver answered 503 for a claim that timed out, so nobody will process under that token. Clients
   * queue commands while disconnected (ioredis and node-redis both do by default), so the claim may still
   * reach Redis later; if it does and wins, free the key at once rather than have redeliveries answered
   * 409 until the lease runs out (the event's, and its object's when `object` was claimed with it).
   */
  #undoLateClaim(work: Promise<unknown>, key: string, token: string, object?: string): void {
    work.then(
      (reply) => {
        if (text(reply) !== 'claimed') return;
        this.release(key, token).catch(() => {});
        if (object !== undefined) this.releaseOrder(object, token).catch(() => {});
      },
      () => {},
    );
  }

  #flag(script: LuaScript, reply: unknown): boolean {
    const value = Number(text(reply));
    if (value !== 0 && value !== 1) throw this.#badReply(script, reply);
    return value === 1;
  }

  #badReply(script: LuaScript, reply: unknown): RedisStoreError {
    return new RedisStoreError(
      'ERR_SMS_REDIS_REPLY',
      `unexpected reply to the ${script.name} script: ${JSON.stringify(text(reply))?.slice(0, 100)}.`,
    );
  }

  #run(script: LuaScript, id: string, args: string[]): Promise<unknown> {
    return this.#runOn(script, [this.keyFor(id)], args);
  }

  /** The script on `keys`, routed by the first. */
  async #runOn(script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    const key = keys[0]!;
    const n = String(keys.length);
    try {
      return await this.#send(key, ['EVALSHA', script.sha1, n, ...keys, ...args]);
    } catch (error) {
      // After a restart, failover or SCRIPT FLUSH the server has forgotten the script; EVAL caches it again.
      if (!isNoScript(error)) throw error;
      return this.#send(key, ['EVAL', script.source, n, ...keys, ...args]);
    }
  }

  /** `what`: the script, or a plain command's name (`keepDelivery`). */
  #bounded(work: Promise<unknown>, what: LuaScript | string, id: string): Promise<unknown> {
    const name = typeof what === 'string' ? what : what.name;
    const ms = this.commandTimeoutMs;
    // The command may still run later in Redis; its late reply is dropped (a late claim simply holds the
    // key until its lease ends).
    return withTimeout(
      work,
      ms,
      () =>
        new RedisStoreError(
          'ERR_SMS_REDIS_TIMEOUT',
          `${name} of ${id.slice(0, 80)} got no answer from Redis within ${ms} ms (commandTimeoutMs).`,
        ),
    );
  }
}
