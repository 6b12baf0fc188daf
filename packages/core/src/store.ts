// `@sms-webhooks/core/store`: for authors of dedupe stores (RedisStore, PostgresStore, your own). The
// contract suite to run against a store is `runDedupeStoreContract` from '@sms-webhooks/core/testing'.
export type {
  Awaitable,
  ClaimResult,
  DedupeStore,
  OrderClaimResult,
  StoredEvent,
} from './receiver/dedupe-store.js';
export type { OrderClaim } from './receiver/handler-registry.js';
// Bounds a call to the store's server, with the store's own error.
export { withTimeout } from './receiver/with-timeout.js';
// Start-up checks of a store's options, with the messages every package uses.
export {
  describeValue,
  OPTIONS_ERROR_CODE,
  oneOfOption,
  optionError,
  type PositiveOption,
  positiveOption,
} from './verify/option-checks.js';
