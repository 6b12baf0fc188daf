/** Wire shapes of the service's spec, section 2. */

/**
 * core's EVENT_TYPES, copied because the client has no dependencies; test/event-types.test.ts fails
 * when the two differ.
 */
export const WEBHOOK_EVENT_TYPES = [
  'message.sent',
  'message.delivered',
  'message.failed',
  'message.replied',
  'sms.completed',
  'webhook.test',
] as const;

/** An event type a webhook can subscribe to: one of {@link WEBHOOK_EVENT_TYPES}. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The token exchange's answer (`POST /v1/auth/token`); `client.token()` returns the cached one. */
export interface TokenResponse {
  /** The bearer token the client sends as `Authorization: Bearer …`. */
  access_token: string;
  /** When the token expires, as an ISO 8601 timestamp on the service's clock. */
  expires_at: string;
  /** Seconds the token lives from now; the client schedules its refresh from this, not from `expires_at`. */
  expires_in: number;
  /** `live`, or a test-mode value for `sk_test_` keys (the emulator answers `test`). */
  mode: string;
  /** `Bearer`. */
  token_type: string;
  /** The workspace the API key belongs to. */
  workspace_id: string;
}

/** What `client.createWebhook` sends; checked against the spec's limits before any request is made. */
export interface WebhookIn {
  /** Where the service POSTs events: `https://`, at most {@link MAX_URL_LENGTH} characters. */
  url: string;
  /** The event types to receive, at least one. */
  events: WebhookEventType[];
  /** A note for people, at most {@link MAX_DESCRIPTION_LENGTH} characters. */
  description?: string;
}

/** A registered webhook, as the service answers it. */
export interface WebhookOut {
  /** The webhook's id, for `deleteWebhook` and `listDeliveries`. */
  id: string;
  /** Always `webhook`. */
  object: 'webhook';
  /** Where events are POSTed. */
  url: string;
  /** The subscribed event types. */
  events: WebhookEventType[];
  /** False when the service has stopped sending to it. */
  active: boolean;
  /** ISO 8601 creation time. */
  created_at: string;
  /** The description given at creation, or an empty string. */
  description: string;
  /** The real secret in the create response only; keep it then. */
  secret: string;
}

/** One event's delivery to a webhook, with its attempts so far; read its outcome with `deliveryOutcome`. */
export interface WebhookDelivery {
  /** The delivery's id. */
  id: string;
  /** Always `webhook_delivery`. */
  object: 'webhook_delivery';
  /**
   * The spec shows only `pending`, even on a record with a 200 response; the emulator also answers
   * `failed` once no attempt is left. Read the outcome with `deliveryOutcome(record)`.
   */
  status: string;
  /** Attempts made so far. */
  attempts: number;
  /** ISO 8601 time the delivery was created. */
  created_at: string;
  /** The event's id: the `id` your receiver sees, and its dedupe key. */
  event_id: string;
  /** The event's type. */
  event_type: WebhookEventType;
  /** ISO 8601 time of the attempt that got a 2xx, or null until one did. */
  delivered_at: string | null;
  /** Why the last attempt failed (a time-out, a refused connection), or null. */
  last_error: string | null;
  /** The HTTP status of the last attempt, or null when none answered. */
  last_status_code: number | null;
  /** ISO 8601 time of the next retry, or null when none is scheduled. */
  next_attempt_at: string | null;
  /** True for a `webhook.test` event sent by `testWebhook`. */
  test: boolean;
}

/** The service's list envelope. */
export interface List<T> {
  /** Always `list`. */
  object: 'list';
  /** The items, in the service's order. */
  data: T[];
}

/** What `client.listWebhooks()` resolves with. */
export type WebhookList = List<WebhookOut>;
/** What `client.listDeliveries(id)` resolves with. */
export type WebhookDeliveryList = List<WebhookDelivery>;
