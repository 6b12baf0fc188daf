/** The stable `code` of an {@link OpsError}: what went wrong, whatever the message says. */
export type OpsErrorCode =
  /** An option is missing or wrong; thrown before any request. */
  | 'ERR_SMS_OPS_OPTIONS'
  /** The dedupe store has no `inspect`, so the audit cannot read it. */
  | 'ERR_SMS_OPS_NO_INSPECT'
  /** No live webhook with that id in this workspace. */
  | 'ERR_SMS_OPS_NO_WEBHOOK'
  /** Rotation waited its whole `timeoutMs` and the app never accepted the new secret; the old webhook is kept. */
  | 'ERR_SMS_OPS_NOT_ACCEPTED'
  /** The service answered a list the audit cannot read (a record of another shape); names the field. */
  | 'ERR_SMS_OPS_BAD_ANSWER'
  /** The store keeps no deliveries (no `keptDelivery`), so there is nothing to replay from. */
  | 'ERR_SMS_OPS_NO_KEPT';
