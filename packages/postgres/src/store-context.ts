import { withTimeout } from '@sms-webhooks/internal';
import type { PgPoolLike, PostgresJsLike, Run } from './clients.js';
import { PostgresStoreError } from './errors.js';
import type { KeptStatements } from './kept-statements.js';
import type { OrderStatements } from './order-statements.js';
import type { Statements } from './statements.js';

/** What every operation of the store works with: its statements, its client and its limits. */
export interface StoreContext<Tx = unknown> {
  readonly table: string;
  readonly statementTimeoutMs: number;
  readonly retainMs: number;
  readonly prepare: boolean | undefined;
  readonly run: Run;
  readonly pool: PgPoolLike<Tx> | undefined;
  readonly postgresJs: PostgresJsLike<Tx> | undefined;
  readonly sql: Statements;
  readonly order: OrderStatements;
  readonly kept: KeptStatements;
  /** Called after each claim the database answered: starts the automatic sweep when it is due. */
  readonly claimed: () => void;
}

export function badReply(what: string, rows: unknown): PostgresStoreError {
  return new PostgresStoreError(
    'ERR_SMS_POSTGRES_REPLY',
    `unexpected answer to the ${what} statement: ${JSON.stringify(rows)?.slice(0, 100)}.`,
  );
}

export function bounded<T>(ctx: StoreContext, work: Promise<T>, what: string): Promise<T> {
  const ms = ctx.statementTimeoutMs;
  // The statement may still run later; its late answer is dropped (a late claim is given back, see claim).
  return withTimeout(
    work,
    ms,
    () =>
      new PostgresStoreError(
        'ERR_SMS_POSTGRES_TIMEOUT',
        `${what} got no answer from PostgreSQL within ${ms} ms (statementTimeoutMs).`,
      ),
  );
}

/** A statement that returns its row when it did what it was asked, and no row when it did not. */
export async function flag(
  ctx: StoreContext,
  work: Promise<unknown[]>,
  what: string,
  key: string,
): Promise<boolean> {
  const rows = await bounded(ctx, work, `${what} of ${key.slice(0, 80)}`);
  if (rows.length > 1) throw badReply(what, rows);
  return rows.length === 1;
}
