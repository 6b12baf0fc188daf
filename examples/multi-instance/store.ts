import { RedisStore } from '@sms-webhooks/redis';
import { Redis } from 'ioredis';
import { createClient } from 'redis';

/**
 * One Redis connection and store per instance. Instance "a" uses ioredis and "b" node-redis, to show
 * both one-liners; both write the same keys, so either client can be mixed across a fleet.
 */
export async function connectStore(client: 'ioredis' | 'node-redis', url: string) {
  if (client === 'ioredis') {
    const redis = new Redis(url);
    redis.on('error', (error) => console.error(`redis: ${error.message}`));
    return {
      store: new RedisStore({ client: redis, clientType: 'ioredis' }),
      close: async () => void (await redis.quit()),
    };
  }
  const redis = createClient({ url });
  redis.on('error', (error) => console.error(`redis: ${error.message}`));
  await redis.connect();
  return {
    store: new RedisStore({ client: redis, clientType: 'node-redis' }),
    close: async () => void (await redis.close()),
  };
}
