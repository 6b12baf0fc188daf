import type { DedupeStore, Logger } from '@sms-webhooks/core';
import { recordCompletion as record } from '@sms-webhooks/core/queue';
import type { WebhookJobData } from './job-data.js';

/** Marks the job's event done in the dedupe store after its handlers succeeded. Never throws. */
export function recordCompletion(
  store: DedupeStore,
  data: WebhookJobData,
  retainMs: number,
  logger: Logger,
): Promise<void> {
  const job = { key: data.claim?.key ?? data.event.id, token: data.claim?.token, eventId: data.event.id };
  // Another delivery's claim: its hand-off finds this job and gives the claim up.
  const advice = "raise enqueueTo's holdMs above the longest time a job waits and retries.";
  return record(store, job, retainMs, logger, '@sms-webhooks/pg-boss', advice);
}
