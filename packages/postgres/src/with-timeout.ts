import { PostgresStoreError } from './errors.js';

/**
 * Rejects with ERR_SMS_POSTGRES_TIMEOUT when `work` takes longer than `ms`. The statement itself may
 * still run later; its late answer is dropped (a late claim is given back, see PostgresStore.claim).
 */
export function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  if (ms === Number.POSITIVE_INFINITY) return work;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(
        new PostgresStoreError(
          'ERR_SMS_POSTGRES_TIMEOUT',
          `${what} got no answer from PostgreSQL within ${ms} ms (statementTimeoutMs).`,
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
