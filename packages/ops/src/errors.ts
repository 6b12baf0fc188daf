import { SmsWebhooksError } from '@sms-webhooks/core';
import type { DedupeStore } from '@sms-webhooks/core/store';
import { optionError } from '@sms-webhooks/internal';
import type { OpsErrorCode } from './error-codes.js';

/**
 * Every failure of this package; `code` says which ({@link OpsErrorCode}). Never holds a secret. Match on
 * `code`, as `SmsWebhooksError` says.
 */
export class OpsError extends SmsWebhooksError<OpsErrorCode> {
  /** Its messages begin with `@sms-webhooks/ops`. */
  static override readonly package = '@sms-webhooks/ops';
  /** Always `OpsError`. */
  override readonly name = 'OpsError';
}

const OWNER = '@sms-webhooks/ops';

/** An option mistake, with core's shape (a TypeError with a stable code) and this package's code. */
export function optionMistake(message: string): TypeError {
  return optionError(OWNER, message, 'ERR_SMS_OPS_OPTIONS');
}

export function positiveMs(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw optionMistake(`\`${name}\` must be a positive number of ms, got ${String(value)}.`);
  }
  return value;
}

/**
 * Checks that `store` is the receiver's dedupe store and has `method`, the part of it the operation reads;
 * a store without it is not an option mistake but a store that cannot serve this operation (`code`).
 */
export function checkStore(
  store: unknown,
  method: 'inspect' | 'keptDelivery',
  code: OpsErrorCode,
  why: string,
): asserts store is DedupeStore {
  if (typeof (store as Partial<DedupeStore> | undefined)?.claim !== 'function') {
    throw optionMistake(
      "`store` must be the receiver's dedupe store (MemoryStore, RedisStore, PostgresStore).",
    );
  }
  if (typeof (store as DedupeStore)[method] !== 'function') throw new OpsError(code, why);
}
