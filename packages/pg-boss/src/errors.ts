import { SmsWebhooksError } from '@sms-webhooks/core';
import type { PgBossHandOffErrorCode } from './error-codes.js';

/**
 * What the pg-boss hand-off, its worker and `replayFailed` throw; `code` says why
 * ({@link PgBossHandOffErrorCode}). Match on `code`, as `SmsWebhooksError` says.
 */
export class PgBossHandOffError extends SmsWebhooksError<PgBossHandOffErrorCode> {
  /** Its messages begin with `@sms-webhooks/pg-boss`. */
  static override readonly package = '@sms-webhooks/pg-boss';
  /** Always `PgBossHandOffError`. */
  override readonly name = 'PgBossHandOffError';
}
