// `@sms-webhooks/core/store`: for authors of dedupe stores (RedisStore, PostgresStore, your own). The
// contract suite to run against a store is `runDedupeStoreContract` from '@sms-webhooks/core/testing'.

// "did you mean …?" for a mistyped name in an option or a command.
export { closestName } from './base/closest-name.js';
// Start-up checks of a store's options, with the messages every package uses.
export {
  describeValue,
  OPTIONS_ERROR_CODE,
  oneOfOption,
  optionError,
  type PositiveOption,
  positiveOption,
} from './base/option-checks.js';
// Bounds a call to the store's server, with the store's own error.
export { withTimeout } from './base/with-timeout.js';
// `claimWithOrder` as two calls, for a store that cannot make it one everywhere.
export { claimThenOrder } from './receiver/claim-then-order.js';
export type {
  ClaimResult,
  ClaimWithOrderResult,
  DedupeStore,
  KeptDelivery,
  ObjectSlot,
  OrderClaimResult,
  StoredEvent,
} from './receiver/dedupe-store.js';
// A kept delivery read back from a store: its shape checked, and its body parsed as the receiver did.
export { isKeptDelivery } from './receiver/dedupe-store.js';
export type { OrderClaim } from './receiver/handler-registry.js';
export { parseEvent } from './verify/parse-event.js';
// The store key of a tenant's event, as the receiver writes it (audits, your own tools).
export { tenantKey } from './verify/tenant-secrets.js';
