export { type Clock, systemClock } from '../base/clock.js';
export { randomId, sampleData } from '../verify/test-delivery.js';
export { runAdapterContract } from './adapter-contract.js';
export type { AdapterContractOptions, AdapterHarness, AdapterServer } from './adapter-harness.js';
export {
  type DedupeStoreContractOptions,
  runDedupeStoreContract,
  type StoreFactory,
} from './dedupe-store-contract.js';
export { resolveTestApi, type TestApi } from './test-api.js';
export { type Duration, durationMs, VirtualClock } from './virtual-clock.js';
