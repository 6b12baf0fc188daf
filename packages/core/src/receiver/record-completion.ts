import { describeError } from '../base/describe-error.js';
import type { Logger } from '../base/logger.js';
import { ownerToken } from './claim-step.js';
import type { DedupeStore } from './dedupe-store.js';

// Only for recording a completion whose own claim ran out; one more round trip follows at once.
const RECORD_LEASE_MS = 60_000;

/** A queued event whose handlers succeeded: its dedupe key, the claim it carried (if any) and its id. */
export interface FinishedJob {
  readonly key: string;
  readonly token: string | undefined;
  readonly eventId: string;
}

/**
 * A queue worker's record of a run that succeeded: completes the job's claim or, should it have run out
 * meanwhile, a fresh one. Never throws: the handlers ran, and failing the job now would run them again
 * (the engine's job id still stops a second run while the completed job is kept). `owner` starts the log
 * lines; `advice` says which lease to raise when another claim holds the key.
 */
export async function recordCompletion(
  store: DedupeStore,
  job: FinishedJob,
  retainMs: number,
  logger: Logger,
  owner: string,
  advice: string,
): Promise<void> {
  const { key, token, eventId } = job;
  try {
    if (token !== undefined && (await store.complete(key, token, retainMs))) return;
    const fresh = ownerToken();
    const claimed = await store.claim(key, fresh, RECORD_LEASE_MS);
    if (claimed === 'claimed') await store.complete(key, fresh, retainMs);
    else if (claimed === 'in-flight') {
      // The store has no owner-less complete: another delivery's claim stays until it runs out.
      logger.warn(
        `${owner}: ${eventId} is done but another claim holds its dedupe key, so the completion was not recorded; ${advice}`,
      );
    }
  } catch (error) {
    logger.error(`${owner}: could not record ${eventId} as done: ${describeError(error)}`);
  }
}
