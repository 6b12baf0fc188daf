import { isHandlerError } from '@sms-webhooks/core/queue';
import { type Job, UnrecoverableError } from 'bullmq';

const isUnrecoverable = (error: unknown) => (error as Error | null)?.name === 'UnrecoverableError';

/**
 * What the processor throws to BullMQ. Handler failures arrive gathered in one WebhookHandlerError,
 * which BullMQ would retry even when a handler threw an UnrecoverableError; so that case is rethrown
 * as an UnrecoverableError carrying the handler error as `cause`.
 */
export function toJobError(error: unknown): unknown {
  if (isHandlerError(error) && error.errors.some(isUnrecoverable)) {
    return Object.assign(new UnrecoverableError(error.message), { cause: error });
  }
  return error;
}

/** What onError gets: the handler error again when `toJobError` wrapped it, else what BullMQ failed with. */
export function reportedError(error: unknown): unknown {
  const cause = (error as Error | null)?.cause;
  return isUnrecoverable(error) && isHandlerError(cause) ? cause : error;
}

/**
 * Whether a job BullMQ just reported as failed will not run again. Checked after BullMQ moved it:
 * `finishedOn` is set only when it went to the failed set. That covers what the processor never sees,
 * such as a job stalled more than `maxStalledCount` times, which BullMQ 6 fails with an
 * UnrecoverableError on its next pick-up without running it.
 */
export function isFinalFailure(
  job: Pick<Job, 'finishedOn' | 'attemptsMade' | 'opts'>,
  error: unknown,
): boolean {
  if (job.finishedOn !== undefined && job.finishedOn !== null) return true;
  if (isUnrecoverable(error)) return true;
  return job.attemptsMade >= (job.opts.attempts ?? 1);
}
