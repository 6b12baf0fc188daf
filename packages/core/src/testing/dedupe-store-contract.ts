import { claimWithOrderContract } from './claim-with-order-contract.js';
import type { StoreFactory } from './dedupe-store-kit.js';
import { noRenewRows, renewRefusalRows, renewRows } from './dedupe-store-renew.js';
import { claimRows, keyRows, leaseRows } from './dedupe-store-rows.js';
import { inspectContract } from './inspect-contract.js';
import { orderContract } from './order-contract.js';
import { orderRuleContract } from './order-rule-contract.js';
import { resolveTestApi, type TestApi } from './test-api.js';

export type { StoreFactory } from './dedupe-store-kit.js';

/** Options of {@link runDedupeStoreContract}; `describe` and `it` default to the runner's globals. */
export interface DedupeStoreContractOptions extends Partial<TestApi> {
  /** The runner's `describe`; default the global one. */
  describe?: TestApi['describe'];
  /** The runner's `it`; default the global one. */
  it?: TestApi['it'];
  /**
   * Whether the store implements `renew`. Default true: the renew rows check it, and fail for a store
   * without it (slow handlers would run twice). `false` says the store has no `renew` on purpose: one row
   * then checks that it indeed has none, and the others do not run.
   */
  renew?: boolean;
  /**
   * `true` runs the rows of the order methods too (`claimOrder`, `completeOrder`, `releaseOrder`,
   * `renewOrder`, and the optional `claimWithOrder` when the store has it), which the receiver's `order`
   * option needs. Default false: not every store keeps versions.
   */
  order?: boolean;
}

/**
 * The behaviour every DedupeStore must have. Run it against your own store:
 * `runDedupeStoreContract('PostgresStore', () => new PostgresStore(pool))`.
 */
export function runDedupeStoreContract(
  name: string,
  makeStore: StoreFactory,
  options?: DedupeStoreContractOptions,
): void {
  const api = resolveTestApi(options);
  const { describe } = api;

  describe(`DedupeStore contract: ${name}`, () => {
    claimRows(makeStore, api);
    leaseRows(makeStore, api);
    if (options?.renew === false) noRenewRows(makeStore, api);
    else {
      renewRows(makeStore, api);
      renewRefusalRows(makeStore, api);
    }
    keyRows(makeStore, api);
    inspectContract(name, makeStore, api);
    if (options?.order === true) {
      orderContract(makeStore, api);
      claimWithOrderContract(makeStore, api);
      orderRuleContract(makeStore, api);
    }
  });
}
