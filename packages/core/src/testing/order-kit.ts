import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { DedupeStore } from '../receiver/dedupe-store.js';
import { HOUR } from './dedupe-store-kit.js';

// What the rows of the order methods share: an object no other row uses, versions, and the four methods.

/** An object key no other row, nor an earlier run against the same store, has used. */
export const object = () => `message:msg_contract_${randomBytes(8).toString('hex')}`;
/** Versions of fixed-width instants and an id: to a store any version is a string, compared bytewise. */
export const v = (at: number, id = 'evt_a') => `${String(at).padStart(15, '0')}.${'0'.repeat(15)}.${id}`;

/** The store's four order methods, with a lease or retention of an hour unless given; fails without them. */
export function ops(store: DedupeStore) {
  for (const m of ['claimOrder', 'completeOrder', 'releaseOrder', 'renewOrder'] as const) {
    assert.equal(
      typeof store[m],
      'function',
      `the store has no ${m}(): the receiver's \`order\` needs all four`,
    );
  }
  return {
    claim: (k: string, version: string, token: string, ms = HOUR) => store.claimOrder!(k, version, token, ms),
    complete: (k: string, version: string, token: string, ms = HOUR) =>
      store.completeOrder!(k, version, token, ms),
    release: (k: string, token: string) => store.releaseOrder!(k, token),
    renew: (k: string, token: string, ms: number) => store.renewOrder!(k, token, ms),
  };
}
