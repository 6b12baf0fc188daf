/** The stable `code` of a {@link PgBossHandOffError}. */
export type PgBossHandOffErrorCode =
  /** Bad options; the message says how to fix them. */
  | 'ERR_SMS_PGBOSS_OPTIONS'
  /** The pg-boss queue does not exist: create it with `boss.createQueue(name)` at start-up. */
  | 'ERR_SMS_PGBOSS_NO_QUEUE'
  /**
   * The hand-off's claim no longer held the event (its lease ran out and another delivery took it):
   * the transaction was rolled back, no job was created, and the receiver answered 503.
   */
  | 'ERR_SMS_PGBOSS_CLAIM_LOST'
  /** `replayFailed`: no job for that event id in the queue (or in pg-boss's archive). */
  | 'ERR_SMS_PGBOSS_NO_JOB'
  /** `replayFailed`: the event's job is not in the failed state (waiting, running, done or replayed already). */
  | 'ERR_SMS_PGBOSS_NOT_FAILED';
