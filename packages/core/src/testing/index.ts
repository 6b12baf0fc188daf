export { type Clock, systemClock } from '../base/clock.js';
export { randomId, sampleData } from '../verify/test-delivery.js';
export {
  type AdapterContractOptions,
  type AdapterHarness,
  type AdapterServer,
  runAdapterContract,
} from './adapter-contract.js';
export {
  type DedupeStoreContractOptions,
  runDedupeStoreContract,
  type StoreFactory,
} from './dedupe-store-contract.js';
export { resolveTestApi, type TestApi } from './test-api.js';
export { type Duration, durationMs, VirtualClock } from './virtual-clock.js';
