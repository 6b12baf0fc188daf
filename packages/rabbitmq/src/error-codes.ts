/** The stable `code` of a {@link RabbitHandOffError}. */
export type RabbitHandOffErrorCode =
  /** The broker nacked the message (it could not store it): the receiver answered 503. */
  | 'ERR_SMS_RABBITMQ_NACKED'
  /** The message reached no queue (the queue was deleted): the receiver answered 503. */
  | 'ERR_SMS_RABBITMQ_UNROUTABLE'
  /** No open connection or channel to the broker right now: the receiver answered 503. */
  | 'ERR_SMS_RABBITMQ_DISCONNECTED'
  /** A queue exists with other arguments than these options declare: give every side the same options. */
  | 'ERR_SMS_RABBITMQ_TOPOLOGY'
  /** `replayFailed`: no message for that event id in the failed queue (or a list or replay holds it now). */
  | 'ERR_SMS_RABBITMQ_NO_MESSAGE';
