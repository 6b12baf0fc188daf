import { describeError } from '../base/describe-error.js';
import { WebhookHandlerError } from '../receiver/handler-error.js';
import type { AnyWebhookEvent } from '../verify/event-types.js';
import type { WorkerSettings } from './worker-settings.js';

/** By `code`, not instanceof: core may be loaded twice (ESM and CJS). */
export function isHandlerError(error: unknown): error is WebhookHandlerError {
  const own = error as Partial<WebhookHandlerError> | null;
  return own?.code === 'handler_failed' && own.event !== undefined && Array.isArray(own.errors);
}

/**
 * A job that failed for good, told once: to the worker's `onError`, else the receiver's `onError` hooks
 * (handler failures as they are, anything else in a WebhookHandlerError), else a logged line saying
 * where the job stays (`failedFor`). Never rejects: a hook that fails is logged.
 */
export async function reportFailure<J>(
  s: WorkerSettings<J>,
  job: J,
  event: AnyWebhookEvent,
  error: unknown,
  failedFor: string,
): Promise<void> {
  try {
    if (s.onError !== undefined) return void (await s.onError(error, job));
    if (typeof s.receiver?.reportError === 'function') {
      return s.receiver.reportError(isHandlerError(error) ? error : new WebhookHandlerError([error], event));
    }
    s.logger.error(`${s.owner}: ${event.type} ${event.id} ${failedFor}: ${describeError(error)}`);
  } catch (e) {
    s.logger.error(`${s.owner}: an onError hook failed: ${describeError(e)}`);
  }
}
