export type { WebhookHandlers } from '@sms-webhooks/core/queue';
export { type CreateWorkerOptions, createWorker, type WebhookJob } from './create-worker.js';
export { type EnqueueOptions, enqueueTo } from './enqueue-to.js';
export {
  type FailedEvent,
  findFailed,
  listFailed,
  ReplayError,
  type ReplayErrorCode,
  type ReplayOptions,
  type ReplayResult,
  replayFailed,
} from './failed-jobs.js';
export { DEFAULT_QUEUE_NAME, type WebhookJobData } from './job-data.js';
export { eventIdOfJob, jobIdFor } from './job-id.js';
