import type { DispatchClaim } from '../receiver/dispatch.js';
import { type JobOrder, type JobTurn, jitteredWaitMs } from '../receiver/job-order.js';
import type { JobOutcome, QueuedJob, QueueTransport } from './queue-transport.js';
import { type QueuedJobData, toHandlerContext } from './queued-job.js';
import type { RunClaim, WorkerClaims } from './worker-claim.js';
import type { WorkerSettings } from './worker-settings.js';

/** What running a job works with: the worker's settings, claims and order, its transport, whether it closes. */
export interface JobRunner<J extends QueuedJob> {
  readonly s: WorkerSettings<J>;
  readonly claims: WorkerClaims;
  readonly order: JobOrder<J>;
  readonly transport: QueueTransport<J>;
  closing(): boolean;
}

const DONE: JobOutcome = Object.freeze({ action: 'done' });

function heldClaim({ key, token }: RunClaim): DispatchClaim | undefined {
  return token === undefined ? undefined : { key, token };
}

async function takeTurn<J extends QueuedJob>(r: JobRunner<J>, job: J, data: QueuedJobData): Promise<JobTurn> {
  const wait = r.transport.waitInPlace;
  const until = wait === undefined ? 0 : Date.now() + wait.limitMs(job);
  for (;;) {
    const turn = await r.order.turn(data.event, data.order, job);
    if (turn.action !== 'wait' || wait === undefined) return turn;
    const closing = r.closing();
    if (closing || Date.now() >= until) {
      throw new Error(
        `${data.event.id} waited for ${turn.key}, which another job holds, ${closing ? 'until the worker closed' : `for ${wait.limit}`}; this attempt ends here.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, jitteredWaitMs(r.s.orderWaitMs)));
  }
}

/** Claims, orders and runs one job, and records it done (see QueueWorker.run). */
export async function runJob<J extends QueuedJob>(r: JobRunner<J>, job: J): Promise<JobOutcome> {
  const { s, claims, transport } = r;
  const { orderWaitMs } = s;
  const { data } = job;
  const claim = await claims.take(data);
  if (claim === 'completed') return DONE;
  if (claim === 'in-flight') {
    return { action: 'wait', key: data.claim?.key ?? data.event.id, waitMs: jitteredWaitMs(orderWaitMs) };
  }
  let turn: JobTurn;
  try {
    turn = await takeTurn(r, job, data);
  } catch (error) {
    claims.stopRenewing(claim);
    return { action: 'failed', error, claim: heldClaim(claim) }; // the store failed: retried
  }
  if (turn.action === 'wait') {
    claims.stopRenewing(claim);
    return { action: 'wait', key: turn.key, waitMs: jitteredWaitMs(orderWaitMs) };
  }
  if (turn.action === 'run') {
    try {
      await s.run(data.event, toHandlerContext(data), data.traceContext);
    } catch (error) {
      await turn.held?.release();
      return { action: 'failed', error, claim: heldClaim(claim) };
    } finally {
      claims.stopRenewing(claim);
    }
    const record = () => claims.done(claim, data.event.id);
    if (turn.held !== undefined && transport.completeOrdered !== undefined) {
      await transport.completeOrdered(job, turn.held, record);
      return DONE;
    }
    await turn.held?.complete();
  } else claims.stopRenewing(claim);
  // Ran, or stale (done for good without running): either way a redelivery of it is a duplicate.
  await claims.done(claim, data.event.id);
  return DONE;
}
