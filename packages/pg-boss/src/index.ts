export type { WebhookHandlers } from '@sms-webhooks/core/queue';
export type { PgBossDb, PgBossSender, PgBossWorkers } from './boss.js';
export {
  type CreateWorkerOptions,
  createWorker,
  type WebhookJob,
  type WebhookWorker,
} from './create-worker.js';
export { type EnqueueOptions, enqueueTo } from './enqueue-to.js';
export type { PgBossHandOffErrorCode } from './error-codes.js';
export { PgBossHandOffError } from './errors.js';
export {
  type FailedEvent,
  type FailedJobsOptions,
  findFailed,
  listFailed,
  type ReplayOptions,
  type ReplayResult,
  replayFailed,
} from './failed-jobs.js';
export { DEFAULT_QUEUE_NAME, type WebhookJobData } from './job-data.js';
export { jobIdFor } from './job-id.js';
export type { PgBossCompleter } from './ordered-completion.js';
export type { HandOffStore } from './store.js';
export type { SqlExecutor } from './transaction-db.js';
