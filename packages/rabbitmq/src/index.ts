export type { WebhookHandlers } from '@sms-webhooks/core/queue';
export type { AmqpConnection, AmqpSource } from './channel-source.js';
export {
  type CreateWorkerOptions,
  createWorker,
  type WebhookMessage,
  type WebhookWorker,
} from './create-worker.js';
export { type EnqueueOptions, enqueueTo, type RabbitDispatch } from './enqueue-to.js';
export type { RabbitHandOffErrorCode } from './error-codes.js';
export { RabbitHandOffError } from './errors.js';
export {
  type FailedEvent,
  type FailedQueueOptions,
  listFailed,
  type ReplayOptions,
  type ReplayResult,
  replayFailed,
} from './failed-messages.js';
export { type FindFailedOptions, failedFinder, findFailed } from './find-failed.js';
export type { WebhookMessageData } from './message.js';
export { messageIdFor } from './publish.js';
export { DEFAULT_QUEUE_NAME, type TopologyOptions } from './topology.js';
