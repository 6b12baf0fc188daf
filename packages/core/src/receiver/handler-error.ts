import type { AnyWebhookEvent } from '../verify/event-types.js';

/** Every failure of one event's handlers, collected; `errors` holds each handler's own error. */
export class WebhookHandlerError extends AggregateError {
  /** Always `WebhookHandlerError`. */
  override readonly name = 'WebhookHandlerError';
  /** Always `handler_failed`, the code the receiver answers with. */
  readonly code = 'handler_failed';
  /** The event whose handlers failed; each failure is in `errors`. */
  readonly event: AnyWebhookEvent;

  constructor(errors: unknown[], event: AnyWebhookEvent) {
    super(
      errors,
      `${errors.length} handler${errors.length === 1 ? '' : 's'} failed for ${event.type} ${event.id}: ${errors
        .map((e) => (e instanceof Error ? e.message : String(e)))
        .join('; ')}`,
    );
    this.event = event;
  }
}

/** The reason of `ctx.signal` and the error of a run that passed `handlerTimeoutMs`. */
export class HandlerTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  readonly code = 'ERR_SMS_HANDLER_TIMEOUT';

  constructor(event: AnyWebhookEvent, ms: number) {
    super(
      `the handlers of ${event.type} ${event.id} did not settle within ${ms} ms (handlerTimeoutMs); the run counts as failed`,
    );
  }
}
