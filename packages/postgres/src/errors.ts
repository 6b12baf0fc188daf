import { SmsWebhooksError } from '@sms-webhooks/core';
import type { PostgresStoreErrorCode } from './error-codes.js';

/**
 * What `PostgresStore` throws: bad options, a statement past `statementTimeoutMs`, a missing table or a
 * lost claim; `code` says which ({@link PostgresStoreErrorCode}). Match on `code`, as `SmsWebhooksError` says.
 */
export class PostgresStoreError extends SmsWebhooksError<PostgresStoreErrorCode> {
  /** Its messages begin with `@sms-webhooks/postgres`. */
  static override readonly package = '@sms-webhooks/postgres';
  /** Always `PostgresStoreError`. */
  override readonly name = 'PostgresStoreError';
}
