import { RedisStoreError } from './errors.js';

/**
 * The one thing RedisStore needs from a client: send a command, get its reply. Replies may be strings,
 * Buffers or numbers; a Redis error reply must reject (with the server's message, e.g. `NOSCRIPT …`).
 */
export type SendCommand = (...args: string[]) => Promise<unknown>;

/** Which client `client` is. Chosen by you, never guessed from the object's shape. */
export type ClientType = 'ioredis' | 'node-redis' | 'node-redis-cluster';

/** ioredis `Redis` or `Cluster`: both route `call('EVALSHA', sha, 1, key, …)` by its key. */
export interface IoredisLike {
  /** Sends one command with its arguments. */
  call(command: string, ...args: string[]): Promise<unknown>;
}

/** node-redis v4/v5 `createClient()`. */
export interface NodeRedisLike {
  /** Sends one command, given as its words. */
  sendCommand(args: string[]): Promise<unknown>;
}

/** node-redis v4/v5 `createCluster()`: needs the key to pick the node. */
export interface NodeRedisClusterLike {
  /** Sends one command to the node that holds `firstKey`. */
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
  ): Promise<unknown>;
}

/** Internal: every command the store sends names its one key, so a cluster client can route it. */
export type KeyedSendCommand = (key: string, args: string[]) => Promise<unknown>;

const METHOD: Record<ClientType, string> = {
  ioredis: 'call',
  'node-redis': 'sendCommand',
  'node-redis-cluster': 'sendCommand',
};

export function fromClient(client: unknown, clientType: unknown): KeyedSendCommand {
  if (clientType === undefined) {
    throw new RedisStoreError(
      'ERR_SMS_REDIS_OPTIONS',
      "say which client you pass: new RedisStore({ client, clientType: 'ioredis' }) " +
        "(or 'node-redis', 'node-redis-cluster'), or pass sendCommand instead of client.",
    );
  }
  if (!(typeof clientType === 'string' && clientType in METHOD)) {
    throw new RedisStoreError(
      'ERR_SMS_REDIS_OPTIONS',
      `clientType must be 'ioredis', 'node-redis' or 'node-redis-cluster', got ${JSON.stringify(clientType)}.`,
    );
  }
  const type = clientType as ClientType;
  const method = METHOD[type];
  if (
    typeof client !== 'object' ||
    client === null ||
    typeof (client as Record<string, unknown>)[method] !== 'function'
  ) {
    throw new RedisStoreError(
      'ERR_SMS_REDIS_OPTIONS',
      `clientType '${type}' needs a client with a ${method}() method; this client has none. ` +
        'Is clientType right for the client you pass?',
    );
  }
  if (type !== 'ioredis' && looksLikeIoredis(client)) {
    throw new RedisStoreError(
      'ERR_SMS_REDIS_OPTIONS',
      `clientType '${type}' was given an ioredis client (it has call() and a status): ` +
        "pass clientType: 'ioredis' for ioredis' Redis and Cluster.",
    );
  }
  if (type === 'ioredis') {
    const c = client as IoredisLike;
    return (_key, [command, ...args]) => c.call(command!, ...args);
  }
  if (type === 'node-redis') {
    const c = client as NodeRedisLike;
    return (_key, args) => c.sendCommand(args);
  }
  const c = client as NodeRedisClusterLike;
  return (key, args) => c.sendCommand(key, false, args);
}

/**
 * ioredis' Redis and Cluster have a sendCommand() too, but it takes an ioredis Command: declared as
 * node-redis, every command would fail. Both have call() and a string `status`; node-redis clients have
 * neither (they have `isOpen`).
 */
function looksLikeIoredis(client: object): boolean {
  const c = client as Record<string, unknown>;
  return typeof c.call === 'function' && typeof c.status === 'string';
}

export function fromSendCommand(sendCommand: unknown): KeyedSendCommand {
  if (typeof sendCommand !== 'function') {
    throw new RedisStoreError(
      'ERR_SMS_REDIS_OPTIONS',
      'sendCommand must be a function (...args: string[]) => Promise<reply>, e.g. ' +
        '(...args) => redis.call(...args) for ioredis or (...args) => client.sendCommand(args) for node-redis.',
    );
  }
  const send = sendCommand as SendCommand;
  return (_key, args) => send(...args);
}
