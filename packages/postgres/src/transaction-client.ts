import { PostgresStoreError } from './errors.js';

/**
 * Refuses the two clients that look like a transaction's but run each statement on a connection of their
 * choosing: a pg `Pool` and the top-level postgres.js `sql`. Given to `completeIn`, the record would commit
 * on its own while the caller's transaction rolls back, and every redelivery would be answered duplicate.
 * Told apart by their public APIs: a pg Pool counts its clients (`totalCount`, `idleCount`), which a
 * client checked out of it does not; the top-level `sql` has `begin`, which a transaction's `sql` (it has
 * `savepoint`) and a reserved connection do not.
 */
export function refuseNonTransactional(tx: unknown): void {
  if (typeof tx === 'function' && typeof (tx as { begin?: unknown }).begin === 'function') {
    throw new PostgresStoreError(
      'ERR_SMS_POSTGRES_OPTIONS',
      'completeIn(ctx, tx) was given the top-level postgres.js sql, which runs each statement outside your ' +
        'transaction: the event would be recorded done even if the transaction rolls back. Pass the ' +
        'transaction: sql.begin(async (tx) => { …; await store.completeIn(ctx, tx) }), or let the store ' +
        'open it: store.transaction(ctx, async (tx) => { … }).',
    );
  }
  if (
    typeof tx === 'object' &&
    tx !== null &&
    typeof (tx as { totalCount?: unknown }).totalCount === 'number' &&
    typeof (tx as { idleCount?: unknown }).idleCount === 'number'
  ) {
    throw new PostgresStoreError(
      'ERR_SMS_POSTGRES_OPTIONS',
      'completeIn(ctx, tx) was given a pg Pool, which runs each statement on whichever client is free, ' +
        'outside your transaction: the event would be recorded done even if the transaction rolls back. ' +
        "Pass the client the transaction runs on: const client = await pool.connect(); await client.query('BEGIN'); " +
        "…; await store.completeIn(ctx, client); await client.query('COMMIT'). Or let the store open it: " +
        'store.transaction(ctx, async (client) => { … }).',
    );
  }
}
