/**
 * Attribute names. OpenTelemetry's semantic conventions where one exists (HTTP server, messaging,
 * error.type); everything else under `sms_webhooks.`.
 */
export const ATTR = {
  httpMethod: 'http.request.method',
  httpStatus: 'http.response.status_code',
  userAgent: 'user_agent.original',
  errorType: 'error.type',
  messagingSystem: 'messaging.system',
  messagingOperationType: 'messaging.operation.type',
  messagingOperationName: 'messaging.operation.name',
  messageId: 'messaging.message.id',
  eventType: 'sms_webhooks.event.type',
  attempt: 'sms_webhooks.delivery.attempt',
  outcome: 'sms_webhooks.outcome',
  store: 'sms_webhooks.store',
  respond: 'sms_webhooks.respond',
  storeOperation: 'sms_webhooks.store.operation',
  storeResult: 'sms_webhooks.store.result',
  storeDuration: 'sms_webhooks.store.duration',
  handlerName: 'sms_webhooks.handler.name',
  handlersFailed: 'sms_webhooks.handlers.failed',
  webhookId: 'sms_webhooks.webhook.id',
  auditCategory: 'sms_webhooks.audit.category',
} as const;

/** `messaging.system`: not one of the registry's well-known values, so our own. */
export const MESSAGING_SYSTEM = 'sms_webhooks';

export const SPAN = {
  delivery: 'sms-webhooks delivery',
  /** `sms-webhooks job`: a queued event's run in a worker, linked to its delivery. */
  job: 'sms-webhooks job',
  /** `sms-webhooks dispatch`: the hand-off to a queue (`dispatch` option). */
  dispatch: 'sms-webhooks dispatch',
  storePrefix: 'sms-webhooks ',
  /** Followed by the handler's function name, or `anonymous`. */
  handlerPrefix: 'sms-webhooks handler ',
} as const;

export const EVENT = {
  /** Only when handlers run after the answer ('immediately'): otherwise the span ends with the answer. */
  answered: 'sms_webhooks.answered',
  /** A failed handler, by default (`detail: 'full'` gives each handler a span instead). */
  handler: 'sms_webhooks.handler',
  /** Followed by the operation: `sms_webhooks.claim`, `….complete`, `….release`. */
  storePrefix: 'sms_webhooks.',
} as const;

export const METRIC = {
  deliveries: 'sms_webhooks.deliveries',
  answerDuration: 'sms_webhooks.answer.duration',
  handlerDuration: 'sms_webhooks.handler.duration',
  handlersActive: 'sms_webhooks.handlers.active',
  storeDuration: 'sms_webhooks.store.duration',
  auditEvents: 'sms_webhooks.audit.events',
} as const;
