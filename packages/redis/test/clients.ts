import { RedisStore, type RedisStoreOptions } from '@sms-webhooks/redis';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { createClient as createClientV4 } from 'redis4';

export const CLIENT_KINDS = ['ioredis', 'node-redis v5', 'node-redis v4'] as const;
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
  if (kind === 'ioredis') {
    // The client's defaults, as most apps run it: offline queue on, 20 retries per request.
    const client = new Redis(url);
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
  const client = (kind === 'node-redis v5' ? createClient(options) : createClientV4(options)) as unknown as {
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
