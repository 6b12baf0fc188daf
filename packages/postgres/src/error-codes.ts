/** The stable `code` of a {@link PostgresStoreError}. */
export type PostgresStoreErrorCode =
  /** Bad constructor options or a call the store cannot serve; the message says how to fix it. */
  | 'ERR_SMS_POSTGRES_OPTIONS'
  /** A statement did not answer within `statementTimeoutMs`. */
  | 'ERR_SMS_POSTGRES_TIMEOUT'
  /** PostgreSQL answered something the statements never return (a proxy, a changed table?). */
  | 'ERR_SMS_POSTGRES_REPLY'
  /** The dedupe table does not exist: run `migrate()` or `sql/migration.sql`. */
  | 'ERR_SMS_POSTGRES_NO_TABLE'
  /**
   * A transaction could not complete the dedupe record: this delivery's claim no longer holds it (the
   * lease ran out and another delivery took it over, or another transaction of this delivery already
   * completed it). The transaction was rolled back; nothing of it is visible.
   */
  | 'ERR_SMS_POSTGRES_CLAIM_LOST';
