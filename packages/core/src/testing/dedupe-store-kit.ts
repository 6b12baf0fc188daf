import { randomBytes } from 'node:crypto';
import type { DedupeStore } from '../receiver/dedupe-store.js';

/** Makes a fresh, empty store for each row of the contract (its own key prefix, table or database). */
export type StoreFactory = () => DedupeStore | Promise<DedupeStore>;

/** A lease or retention no row outlives. */
export const HOUR = 3_600_000;

/** A key no other row, nor an earlier run against the same store, has used. */
export const key = () => `evt_contract_${randomBytes(8).toString('hex')}`;
