import { isKeptDelivery, type KeptDelivery } from '@sms-webhooks/core/store';
import { PostgresStoreError } from './errors.js';
import { storedKey } from './event-key.js';
import { badReply, bounded, type StoreContext } from './store-context.js';
import { duration } from './store-options.js';

/**
 * Keeps a delivery (the receiver's `keepDeliveries`) in `<table>_kept` for `retainMs`, replacing what
 * was kept for the event (see DedupeStore.keepDelivery): one `INSERT … ON CONFLICT`, one round trip.
 * Rejects with ERR_SMS_POSTGRES_NO_TABLE on a database migrated before that table existed.
 */
export async function keepDelivery(
  ctx: StoreContext,
  key: string,
  delivery: KeptDelivery,
  retainMs: number,
): Promise<void> {
  // JSON.stringify writes NUL and lone surrogates as escapes, so the text column takes any body.
  const values = [storedKey(key), JSON.stringify(delivery), duration('retainMs', retainMs)];
  const rows = await bounded(
    ctx,
    keptTable(ctx, ctx.run('keepDelivery', ctx.kept.keep, values)),
    `keepDelivery of ${key.slice(0, 80)}`,
  );
  if (rows.length !== 1) throw badReply('keepDelivery', rows);
}

/** What `keepDelivery` kept for the event id `key`, while its retention lasts (see DedupeStore.keptDelivery). */
export async function keptDelivery(ctx: StoreContext, key: string): Promise<KeptDelivery | undefined> {
  const rows = await bounded(
    ctx,
    keptTable(ctx, ctx.run('keptDelivery', ctx.kept.kept, [storedKey(key)])),
    `keptDelivery of ${key.slice(0, 80)}`,
  );
  if (rows.length === 0) return undefined;
  const text = (rows[0] as { delivery?: unknown }).delivery;
  let parsed: unknown;
  try {
    parsed = typeof text === 'string' ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (rows.length !== 1 || !isKeptDelivery(parsed)) throw badReply('keptDelivery', rows);
  // Every field present, undefined ones too (JSON drops them): the record reads back as it was given.
  const { eventId, eventType, attempt, receivedAt, tenant, bytes, body } = parsed;
  return { eventId, eventType, attempt, receivedAt, tenant, bytes, body };
}

/** A missing kept table (a database migrated before `keepDeliveries` existed) says what to run. */
function keptTable<T>(ctx: StoreContext, work: Promise<T>): Promise<T> {
  return work.catch((error: unknown) => {
    if ((error as { code?: unknown } | null)?.code !== '42P01') throw error;
    throw new PostgresStoreError(
      'ERR_SMS_POSTGRES_NO_TABLE',
      `the table ${ctx.table}_kept does not exist (the receiver's \`keepDeliveries\` option needs it): call await store.migrate() at start-up, or run migrationSql() again with your migrations (it adds it).`,
      { cause: error },
    );
  });
}
