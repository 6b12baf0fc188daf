// `@sms-webhooks/core/queue`: for authors of durable hand-offs (`@sms-webhooks/bullmq`, `@sms-webhooks/pg-boss`):
// the `dispatch` side, and what a worker that owns a claim needs.

// The worker core the queue packages share, for a transport of your own: each keeps only its engine's
// transport (ack, retry, fail) around it.
export { isHandlerError } from './queue/failure-report.js';
export type { JobOutcome, QueuedJob, QueueTransport } from './queue/queue-transport.js';
export { createQueueWorker, type QueueWorker } from './queue/queue-worker.js';
export type { QueuedJobData } from './queue/queued-job.js';
export type { ClaimPolicy } from './queue/worker-claim.js';
export type { QueueWorkerOptions, WorkerSettings } from './queue/worker-settings.js';
export {
  type Dispatch,
  type DispatchClaim,
  type DispatchedEvent,
  DispatchTimeoutError,
  type QueuedOrder,
} from './receiver/dispatch.js';
// A worker's handlers: a receiver's, or a map of handlers by event type.
export {
  type RunHandlers,
  type RunHandlersOptions,
  toRunHandlers,
  type WebhookHandlers,
} from './receiver/handler-map.js';
// `order` where a worker runs the jobs: the job's turn (run, stale, wait) and its object's lease.
export {
  checkJobOrder,
  type HeldOrder,
  JobOrder,
  type JobOrderOptions,
  type JobTurn,
  jitteredWaitMs,
  type StaleJobHandler,
} from './receiver/job-order.js';
// Renews a claim every leaseMs / 3 while a worker runs its handlers.
export { type Held, LeaseKeeper } from './receiver/lease-keeper.js';
// The receiver as a worker sees it: `reportError` hands an exhausted job's failure to the onError hooks.
export type { AdapterReceiver } from './receiver/receiver.js';
// A worker's record of a run that succeeded, with a fresh claim when the job's ran out.
export { type FinishedJob, recordCompletion } from './receiver/record-completion.js';
