import type { DedupeStore } from '@sms-webhooks/core/store';
import { optionError } from '@sms-webhooks/internal';

/** The stable `code` of an {@link OpsError}: what went wrong, whatever the message says. */
export type OpsErrorCode =
  /** An option is missing or wrong; thrown before any request. */
  | 'ERR_SMS_OPS_OPTIONS'
  /** The dedupe store has no `inspect`, so the audit cannot read it. */
  | 'ERR_SMS_OPS_NO_INSPECT'
  /** No live webhook with that id in this workspace. */
  | 'ERR_SMS_OPS_NO_WEBHOOK'
  /** Rotation waited its whole `timeoutMs` and the app never accepted the new secret; the old webhook is kept. */
  | 'ERR_SMS_OPS_NOT_ACCEPTED'
  /** The service answered a list the audit cannot read (a record of another shape); names the field. */
  | 'ERR_SMS_OPS_BAD_ANSWER'
  /** The store keeps no deliveries (no `keptDelivery`), so there is nothing to replay from. */
  | 'ERR_SMS_OPS_NO_KEPT';

/** Every failure of this package; match on `code` (the ESM and CJS builds have a class each). Never holds a secret. */
export class OpsError extends Error {
  /** Always `OpsError`. */
  override readonly name = 'OpsError';
  /** What went wrong; see {@link OpsErrorCode}. */
  readonly code: OpsErrorCode;

  constructor(code: OpsErrorCode, message: string) {
    super(`@sms-webhooks/ops: ${message}`);
    this.code = code;
  }
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
