import type { DedupeStore, Logger } from '@sms-webhooks/core';
import type { HeldOrder } from '@sms-webhooks/core/queue';
import type { WebhookJobData } from './job-data.js';
import { isHandOffStore } from './store.js';
import { transactionDb } from './transaction-db.js';

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Thrown inside the transaction to roll it back: the job was no longer ours to complete. */
class NotActive extends Error {}

/** pg-boss's `complete`; both majors take (name, id, data, { db }), with types that do not fit each other. */
export interface PgBossCompleter {
  /** Completes a job; called with `{ db }` so the completion joins the order's transaction. */
  complete(...args: never[]): Promise<unknown>;
}

type Complete = (name: string, id: string, data: object, options: { db: unknown }) => Promise<unknown>;

export interface OrderedCompletion {
  store: DedupeStore;
  boss: Partial<PgBossCompleter>;
  queue: string;
  logger: Logger;
}

/**
 * An ordered job's handlers succeeded: the object's version advances, the event's record completes and
 * the job completes, in one PostgreSQL transaction when the store is a PostgresStore and the job holds a
 * claim. A process killed before the commit leaves all three as they were (the job runs again, as any
 * job whose worker died); after it, all three are done. Otherwise (another store, no claim, the claim
 * gone), the version advances, then the record (`record`), then pg-boss completes the job: a death between those
 * runs the job again, and its version then ties with itself, so it runs rather than being dropped.
 * Never rejects: the handlers ran, and failing the job now would run them again.
 */
export async function completeOrdered(
  c: OrderedCompletion,
  job: { id: string; data: WebhookJobData },
  held: HeldOrder,
  record: () => Promise<void>,
): Promise<void> {
  const { data } = job;
  held.stop();
  const { store, boss, queue, logger } = c;
  if (isHandOffStore(store) && data.claim !== undefined && typeof boss.complete === 'function') {
    try {
      await store.transaction({ claim: data.claim, order: held.order }, async (tx) => {
        // pg-boss 10 resolves with { affected } (its types say void): 0 when the job was no longer active.
        const complete = boss.complete as unknown as Complete;
        const done = (await complete.call(boss, queue, job.id, {}, { db: transactionDb(tx) })) as
          | { affected?: number }
          | undefined;
        if (done?.affected === 0) throw new NotActive();
      });
      return;
    } catch (error) {
      if (error instanceof NotActive) {
        // pg-boss failed the run meanwhile (past expireInSeconds): it runs again, and completes then.
        logger.warn(
          `@sms-webhooks/pg-boss: ${data.event.id} ran, but its job was no longer active (it outlived expireInSeconds); it runs again, and its version advances then.`,
        );
        return;
      }
      if ((error as { code?: unknown } | null)?.code !== 'ERR_SMS_POSTGRES_CLAIM_LOST') {
        logger.error(
          `@sms-webhooks/pg-boss: could not complete ${data.event.id} in one transaction: ${describe(error)}`,
        );
      }
      // The claim is gone (or the transaction failed): complete step by step, as without a claim.
    }
  }
  await held.complete();
  await record();
}
