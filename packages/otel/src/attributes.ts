/**
 * Attribute names. OpenTelemetry's semantic conventions where one exists (HTTP server, messaging,
 * error.type); everything else under `sms_webhooks.`.
 */
export const ATTR = {
  /** The request's HTTP method. */
  httpMethod: 'http.request.method',
  /** The status the receiver answered. */
  httpStatus: 'http.response.status_code',
  /** The caller's `User-Agent`. */
  userAgent: 'user_agent.original',
  /** The answer's error code (`ERR_SMS_WEBHOOK_…`) or the handler's error name, when not a success. */
  errorType: 'error.type',
  /** Always {@link MESSAGING_SYSTEM}. */
  messagingSystem: 'messaging.system',
  /** `process`: a delivery, a refusal or a queued job is the processing of a message. */
  messagingOperationType: 'messaging.operation.type',
  /** The semantic conventions' operation name attribute (reserved; not set today). */
  messagingOperationName: 'messaging.operation.name',
  /** The event's id (`evt_…`). */
  messageId: 'messaging.message.id',
  /** The event's type, e.g. `message.delivered`. */
  eventType: 'sms_webhooks.event.type',
  /** The service's attempt number, from the delivery's header. */
  attempt: 'sms_webhooks.delivery.attempt',
  /** How the delivery ended: `received`, `duplicate`, `ignored`, `stale`, `in_flight`, `refused`, `invalid`, `failed`. */
  outcome: 'sms_webhooks.outcome',
  /** The receiver's store, by its class name (`RedisStore`). */
  store: 'sms_webhooks.store',
  /** The receiver's `respond` setting. */
  respond: 'sms_webhooks.respond',
  /** The store operation: `claim`, `complete`, `release`, `renew`. */
  storeOperation: 'sms_webhooks.store.operation',
  /** What the store answered, e.g. `claimed` or `duplicate` for a claim. */
  storeResult: 'sms_webhooks.store.result',
  /** How long the store operation took, in seconds, on its event. */
  storeDuration: 'sms_webhooks.store.duration',
  /** The handler's function name, or `anonymous`. */
  handlerName: 'sms_webhooks.handler.name',
  /** How many handlers failed on the delivery. */
  handlersFailed: 'sms_webhooks.handlers.failed',
  /** The audited webhook (`wh_…`), on the audit metric. */
  webhookId: 'sms_webhooks.webhook.id',
  /** The audit category (`missed`, `retrying`, `unfinished`, `fine`), on the audit metric. */
  auditCategory: 'sms_webhooks.audit.category',
} as const;

/** `messaging.system`: not one of the registry's well-known values, so our own. */
export const MESSAGING_SYSTEM = 'sms_webhooks';

/** Span names. */
export const SPAN = {
  /** `sms-webhooks delivery`: one per delivery, from the request to the answer (or to the handlers' end). */
  delivery: 'sms-webhooks delivery',
  /** `sms-webhooks job`: a queued event's run in a worker, linked to its delivery. */
  job: 'sms-webhooks job',
  /** `sms-webhooks dispatch`: the hand-off to a queue (`dispatch` option). */
  dispatch: 'sms-webhooks dispatch',
  /** Followed by the store operation (`sms-webhooks claim`), for a store operation's span. */
  storePrefix: 'sms-webhooks ',
  /** Followed by the handler's function name, or `anonymous`. */
  handlerPrefix: 'sms-webhooks handler ',
} as const;

/** Names of the span events recorded on the delivery span. */
export const EVENT = {
  /** Only when handlers run after the answer ('immediately'): otherwise the span ends with the answer. */
  answered: 'sms_webhooks.answered',
  /** A failed handler, by default (`detail: 'full'` gives each handler a span instead). */
  handler: 'sms_webhooks.handler',
  /** Followed by the operation: `sms_webhooks.claim`, `….complete`, `….release`. */
  storePrefix: 'sms_webhooks.',
} as const;

/** Metric names. */
export const METRIC = {
  /** Counter: deliveries, by outcome, error code, event type and status. */
  deliveries: 'sms_webhooks.deliveries',
  /** Histogram (s): from the request to the receiver's answer. */
  answerDuration: 'sms_webhooks.answer.duration',
  /** Histogram (s): each handler's run. */
  handlerDuration: 'sms_webhooks.handler.duration',
  /** Up-down counter: handlers running now. */
  handlersActive: 'sms_webhooks.handlers.active',
  /** Histogram (s): each store operation, and the dispatch to a queue. */
  storeDuration: 'sms_webhooks.store.duration',
  /** Gauge: an audit's events per category and webhook (`recordAudit`). */
  auditEvents: 'sms_webhooks.audit.events',
} as const;
