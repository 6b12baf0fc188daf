import type { StoredEvent } from '@sms-webhooks/core/store';
import { storedKey } from './event-key.js';
import { badReply, bounded, type StoreContext } from './store-context.js';

const STATES = new Set(['in-flight', 'committed', 'completed']);

/**
 * What the table holds for the event id `key` (see DedupeStore.inspect). A row committed by a
 * handler's transaction reads as completed: it is done for good.
 */
export async function inspect(ctx: StoreContext, key: string): Promise<StoredEvent | undefined> {
  const what = `inspect of ${key.slice(0, 80)}`;
  const rows = await bounded(ctx, ctx.run('inspect', ctx.sql.inspect, [storedKey(key)]), what);
  const row = rows[0] as { state?: unknown; expires_ms?: unknown } | undefined;
  if (row === undefined) return undefined;
  const expiresAt = Number(row.expires_ms);
  if (typeof row.state !== 'string' || !STATES.has(row.state) || !Number.isFinite(expiresAt)) {
    throw badReply('inspect', rows);
  }
  return { state: row.state === 'in-flight' ? 'in-flight' : 'completed', expiresAt };
}

/** `inspect` of many keys in one statement, answers in the order given (see DedupeStore.inspectMany). */
export async function inspectMany(
  ctx: StoreContext,
  keys: readonly string[],
): Promise<Array<StoredEvent | undefined>> {
  if (keys.length === 0) return [];
  const stored = keys.map(storedKey);
  const what = `inspect of ${keys.length} keys`;
  const rows = await bounded(
    ctx,
    ctx.run('inspectMany', ctx.sql.inspectMany, [JSON.stringify(stored)]),
    what,
  );
  const found = new Map<string, StoredEvent>();
  for (const row of rows as Array<{ key?: unknown; state?: unknown; expires_ms?: unknown }>) {
    const expiresAt = Number(row.expires_ms);
    if (
      typeof row.key !== 'string' ||
      typeof row.state !== 'string' ||
      !STATES.has(row.state) ||
      !Number.isFinite(expiresAt)
    ) {
      throw badReply('inspectMany', rows);
    }
    found.set(row.key, { state: row.state === 'in-flight' ? 'in-flight' : 'completed', expiresAt });
  }
  return stored.map((key) => found.get(key));
}
