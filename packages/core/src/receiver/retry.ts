import { describeValue, optionError, positiveOption } from '@sms-webhooks/internal';

/** The receiver's `retry` option: re-runs a failed handler run in 'immediately' mode. */
export type RetryOption = false | { attempts?: number; backoffMs?: number | readonly number[] };

/** The checked option: how many runs in all, and the wait before each re-run. */
export interface RetryPolicy {
  /** Runs in all, the first included; 1 means no retry. */
  attempts: number;
  /** The wait before run `n + 2` (after the `n + 1`th failed). */
  waitMs(n: number): number;
}

export const DEFAULT_RETRY_ATTEMPTS = 3;
export const DEFAULT_BACKOFF_MS = 1000;

export function retryOption(value: unknown): RetryPolicy {
  if (value === false) return { attempts: 1, waitMs: () => 0 };
  if (value !== undefined && (typeof value !== 'object' || value === null)) {
    throw optionError(
      'sms-webhooks',
      `\`retry\` must be false or { attempts, backoffMs }, got ${describeValue(value)}.`,
    );
  }
  const { attempts: a, backoffMs } = (value ?? {}) as { attempts?: unknown; backoffMs?: unknown };
  const attempts = positiveOption('retry.attempts', a, DEFAULT_RETRY_ATTEMPTS, { integer: true });
  if (Array.isArray(backoffMs)) {
    const waits = backoffMs.map((w, i) => positiveOption(`retry.backoffMs[${i}]`, w, 0));
    if (waits.length === 0) throw optionError('sms-webhooks', '`retry.backoffMs` is an empty list.');
    return { attempts, waitMs: (n) => waits[Math.min(n, waits.length - 1)]! };
  }
  const base = positiveOption('retry.backoffMs', backoffMs, DEFAULT_BACKOFF_MS);
  return { attempts, waitMs: (n) => base * 2 ** n };
}
