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
    // The hand-off's hold ran out while the job waited (or there was none): take a fresh claim to record it.
    const token = randomUUID();
    const claimed = await store.claim(key, token, RECORD_LEASE_MS);
    if (claimed === 'claimed') await store.complete(key, token, retainMs);
    else if (claimed === 'in-flight') {
      // Another delivery holds the key right now (its hand-off finds this job and gives the claim up).
      logger.warn(
        `@sms-webhooks/pg-boss: ${data.event.id} is done but another claim holds its dedupe key, so the completion was not recorded; raise enqueueTo's holdMs above the longest time a job waits and retries.`,
      );
    }
  } catch (error) {
    // pg-boss's job id (jobIdFor) still dedupes while the completed job is kept.
    logger.error(`@sms-webhooks/pg-boss: could not record ${data.event.id} as done: ${describe(error)}`);
  }
}
