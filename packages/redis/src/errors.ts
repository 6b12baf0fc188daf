import { SmsWebhooksError } from '@sms-webhooks/core';
import type { RedisStoreErrorCode } from './error-codes.js';

/**
 * What `RedisStore` throws: bad options at construction, a command past `commandTimeoutMs`, or a reply its
 * scripts never give; `code` says which ({@link RedisStoreErrorCode}). Match on `code`, as
 * `SmsWebhooksError` says.
 */
export class RedisStoreError extends SmsWebhooksError<RedisStoreErrorCode> {
  /** Its messages begin with `@sms-webhooks/redis`. */
  static override readonly package = '@sms-webhooks/redis';
  /** Always `RedisStoreError`. */
  override readonly name = 'RedisStoreError';
}
