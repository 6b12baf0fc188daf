import { Inject } from '@nestjs/common';

/**
 * The injection token of the module's receiver (a `Receiver` from `@sms-webhooks/core`). A string, not a
 * symbol, so two copies of this package in one app (its ESM and CommonJS builds) still agree on it.
 */
export const SMS_WEBHOOK_RECEIVER = '@sms-webhooks/nestjs:receiver';

/** `constructor(@InjectSmsWebhookReceiver() private readonly receiver: Receiver)`. */
export const InjectSmsWebhookReceiver = (): PropertyDecorator & ParameterDecorator =>
  Inject(SMS_WEBHOOK_RECEIVER);
