import { SmsWebhooksError } from '@sms-webhooks/core';
import type { RabbitHandOffErrorCode } from './error-codes.js';

/**
 * What the RabbitMQ hand-off, its worker and `replayFailed` throw; `code` says why
 * ({@link RabbitHandOffErrorCode}). Match on `code`, as `SmsWebhooksError` says.
 */
export class RabbitHandOffError extends SmsWebhooksError<RabbitHandOffErrorCode> {
  /** Its messages begin with `@sms-webhooks/rabbitmq`. */
  static override readonly package = '@sms-webhooks/rabbitmq';
  /** Always `RabbitHandOffError`. */
  override readonly name = 'RabbitHandOffError';
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
