import { randomUUID } from 'node:crypto';
import type { DedupeStore, Logger } from '@sms-webhooks/core';
import type { WebhookJobData } from './job-data.js';

// Only for recording a completion whose original claim ran out; a single round trip follows.
const RECORD_LEASE_MS = 60_000;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Marks the job's event done in the dedupe store after its handlers succeeded. Never throws: the
 * handlers ran, and failing the job now would run them again.
 */
export async function recordCompletion(
  store: DedupeStore,
  data: WebhookJobData,
  retainMs: number,
  logger: Logger,
): Promise<void> {
  const key = data.claim?.key ?? data.event.id;
  try {
    if (data.claim && (await store.complete(key, data.claim.token, retainMs))) return;
    // The claim's lease ran out while the job waited (or there was none): take a fresh one to record it.
    const token = randomUUID();
    const claimed = await store.claim(key, token, RECORD_LEASE_MS);
    if (claimed === 'claimed') await store.complete(key, token, retainMs);
    else if (claimed === 'in-flight') {
      // A redelivery claimed the event after the lease ran out; its add was a no-op (the job id exists),
      // so nobody completes that claim. Until it expires redeliveries get 409; after it, only the kept
      // BullMQ job stops a second run. The store API has no owner-less complete, so say so.
      logger.warn(
        `@sms-webhooks/bullmq: ${data.event.id} is done but a newer claim holds its dedupe key, so the completion was not recorded; raise the receiver's leaseMs above the longest queue wait.`,
      );
    }
  } catch (error) {
    // BullMQ's job id still dedupes while the completed job is kept.
    logger.error(`@sms-webhooks/bullmq: could not record ${data.event.id} as done: ${describe(error)}`);
  }
}
