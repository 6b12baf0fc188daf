import { PostgresStoreError } from './errors.js';

/** Lowercase so that the name means the same quoted or not, in our SQL and in yours. */
const PART = /^[a-z_][a-z0-9_]*$/;

/** `name` or `schema.name`, checked: it is written into the SQL, never passed as a parameter. */
export function checkTable(table: unknown): string {
  const parts = typeof table === 'string' ? table.split('.') : [];
  const name = parts[parts.length - 1] ?? '';
  if (
    parts.length < 1 ||
    parts.length > 2 ||
    !parts.every((p) => PART.test(p) && p.length <= 63) ||
    // The index is named `<name>_expires_at`, and PostgreSQL cuts names at 63 bytes.
    name.length > 52
  ) {
    throw new PostgresStoreError(
      'ERR_SMS_POSTGRES_OPTIONS',
      `table must be a lowercase SQL name (letters, digits, _; at most 52 characters), optionally ` +
        `schema-qualified like 'webhooks.sms_webhook_events'; got ${JSON.stringify(table)}.`,
    );
  }
  return table as string;
}

/**
 * A checked table name as it goes into SQL: each part double-quoted, so that a reserved word (`user`,
 * `order`) is a name like any other. The parts are lowercase, so quoted they name the same table as
 * unquoted, in a table created by an earlier version too.
 */
export function quotedTable(table: string): string {
  return checkTable(table)
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
}
