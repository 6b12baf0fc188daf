export { auditWebhook } from './audit.js';
export type { AuditOptions } from './audit-options.js';
export {
  AUDIT_CATEGORIES,
  type AuditCategory,
  type AuditedEvent,
  type AuditReport,
  type FailedJobInfo,
} from './audit-report.js';
export { type CoverageReport, checkCoverage, type HandledTypes } from './coverage.js';
export type { PublicWebhook, WebhookDeclaration } from './declaration.js';
export type { OpsErrorCode } from './error-codes.js';
export { OpsError } from './errors.js';
export type { PendingDelivery } from './pending.js';
export type { ProbeResult } from './probe.js';
export {
  type ReplayedEvent,
  type ReplayOptions,
  type ReplayOutcome,
  replayEvents,
} from './replay.js';
export { type RetireOptions, type RetireResult, retireWebhook } from './retire.js';
export { type RotateOptions, type RotateResult, rotateWebhook } from './rotate.js';
export { type SmokeTestOptions, type SmokeTestResult, smokeTest } from './smoke-test.js';
export { type SyncResult, syncWebhook } from './sync.js';
export type { Clock } from './wait.js';
