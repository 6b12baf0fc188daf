/** The stable `code` of a {@link RedisStoreError}. */
export type RedisStoreErrorCode =
  /**
   * Bad constructor options, or a lease or retention that is not a positive number of ms; the message
   * says which and how to fix it.
   */
  | 'ERR_SMS_REDIS_OPTIONS'
  /** A command did not answer within `commandTimeoutMs`. */
  | 'ERR_SMS_REDIS_TIMEOUT'
  /** Redis answered something the scripts never return (a proxy or a wrong server?). */
  | 'ERR_SMS_REDIS_REPLY';
