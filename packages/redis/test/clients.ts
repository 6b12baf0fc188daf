import { RedisStore, type RedisStoreOptions } from '@sms-webhooks/redis';
import { Redis } from 'ioredis';
import { Redis as RedisV6 } from 'ioredis6';
import { createClient as createClientV6 } from 'redis';
import { createClient as createClientV4 } from 'redis4';
import { createClient as createClientV5 } from 'redis5';

// Every major the package's peer ranges name: node-redis 6 as `redis`, 5 and 4 as `redis5` and `redis4`;
// ioredis 5 as `ioredis` (what bullmq's users run) and 6 as `ioredis6`.
export const CLIENT_KINDS = [
  'ioredis',
  'ioredis v6',
  'node-redis v5',
  'node-redis v4',
  'node-redis v6',
] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

export interface Connected {
  kind: ClientKind;
  client: unknown;
  clientType: 'ioredis' | 'node-redis';
  store(options?: Omit<RedisStoreOptions, 'client' | 'clientType' | 'sendCommand'>): RedisStore;
  /** Sends a raw command through this client (for SCRIPT FLUSH, GET, PTTL …). */
  command(...args: string[]): Promise<unknown>;
  /** Resolves once a PING through this connection answers (after a server restart). */
  ready(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A fresh connection of the given kind, with the client's default settings. 'error' events are
 * swallowed (fault tests stop the server on purpose; node-redis would crash on an unheard one).
 */
export async function connect(kind: ClientKind, url: string): Promise<Connected> {
  if (kind === 'ioredis' || kind === 'ioredis v6') {
    // The client's defaults, as most apps run it: offline queue on, 20 retries per request.
    const client = kind === 'ioredis' ? new Redis(url) : (new RedisV6(url) as unknown as Redis);
    client.on('error', () => {});
    await client.ping();
    return wrap(
      kind,
      client,
      'ioredis',
      (...a) => client.call(a[0]!, ...a.slice(1)),
      async () => {
        client.disconnect();
      },
    );
  }
  const options = { url };
  // The two majors' client types differ; only connect/sendCommand/disconnect are used here.
  const create = {
    'node-redis v4': createClientV4,
    'node-redis v5': createClientV5,
    'node-redis v6': createClientV6,
  }[kind] as (o: typeof options) => unknown;
  const client = create(options) as {
    on(event: 'error', listener: (error: unknown) => void): unknown;
    connect(): Promise<unknown>;
    sendCommand(args: string[]): Promise<unknown>;
    disconnect(): Promise<void>;
    isOpen: boolean;
  };
  client.on('error', () => {});
  await client.connect();
  return wrap(
    kind,
    client,
    'node-redis',
    (...a) => client.sendCommand(a),
    async () => {
      if (client.isOpen) await client.disconnect();
    },
  );
}

function wrap(
  kind: ClientKind,
  client: unknown,
  clientType: 'ioredis' | 'node-redis',
  command: (...args: string[]) => Promise<unknown>,
  close: () => Promise<void>,
): Connected {
  return {
    kind,
    client,
    clientType,
    store: (options = {}) => new RedisStore({ ...options, client, clientType }),
    command,
    async ready(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const pong = await Promise.race([
          command('PING').catch(() => undefined),
          new Promise((r) => setTimeout(r, 500)),
        ]);
        if (pong === 'PONG') return;
        if (Date.now() > deadline) throw new Error(`${kind} did not reconnect within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close,
  };
}
