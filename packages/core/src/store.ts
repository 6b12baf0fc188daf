// `@sms-webhooks/core/store`: for authors of dedupe stores (RedisStore, PostgresStore, your own). The
// contract suite to run against a store is `runDedupeStoreContract` from '@sms-webhooks/core/testing'.

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
