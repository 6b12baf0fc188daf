import { RedisStoreError } from './errors.js';

/**
 * Rejects with ERR_SMS_REDIS_TIMEOUT when `work` takes longer than `ms`. The command itself may still
 * run later in Redis; its late reply is dropped (a late claim simply holds the key until its lease ends).
 */
export function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  if (ms === Number.POSITIVE_INFINITY) return work;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(
        new RedisStoreError(
          'ERR_SMS_REDIS_TIMEOUT',
          `${what} got no answer from Redis within ${ms} ms (commandTimeoutMs).`,
        ),
      );
    }, ms);
    timer.unref?.();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
