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

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface TokenResponse {
  access_token: string;
  expires_at: string;
  expires_in: number;
  /** `live`, or a test-mode value for `sk_test_` keys (the emulator answers `test`). */
  mode: string;
  token_type: string;
  workspace_id: string;
}

export interface WebhookIn {
  url: string;
  events: WebhookEventType[];
  description?: string;
}

export interface WebhookOut {
  id: string;
  object: 'webhook';
  url: string;
  events: WebhookEventType[];
  active: boolean;
  created_at: string;
  description: string;
  /** The real secret in the create response only; keep it then. */
  secret: string;
}

export interface WebhookDelivery {
  id: string;
  object: 'webhook_delivery';
  /**
   * The spec shows only `pending`, even on a record with a 200 response; the emulator also answers
   * `failed` once no attempt is left. Read the outcome with `deliveryOutcome(record)`.
   */
  status: string;
  attempts: number;
  created_at: string;
  event_id: string;
  event_type: WebhookEventType;
  delivered_at: string | null;
  last_error: string | null;
  last_status_code: number | null;
  next_attempt_at: string | null;
  test: boolean;
}

export interface List<T> {
  object: 'list';
  data: T[];
}

export type WebhookList = List<WebhookOut>;
export type WebhookDeliveryList = List<WebhookDelivery>;
