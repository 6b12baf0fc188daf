import type { EventType } from '@sms-webhooks/core';

/** Wire shapes of spec section 2, as the emulator sends them. */
export type TokenMode = 'live' | 'test';

/** The answer to `POST /v1/auth/token`. */
export interface TokenResponse {
  /** The bearer token; valid for {@link TOKEN_TTL_SECONDS} on the emulator's clock. */
  access_token: string;
  /** ISO 8601 expiry time. */
  expires_at: string;
  /** Seconds until expiry. */
  expires_in: number;
  /** `test` for an `sk_test_` key, else `live`. */
  mode: TokenMode;
  /** Always `bearer`. */
  token_type: 'bearer';
  /** The workspace the key belongs to. */
  workspace_id: string;
}

/** A registered webhook, as the routes answer it and `emulator.webhooks()` lists it. */
export interface WebhookOut {
  /** The webhook's id (`wh_…`). */
  id: string;
  /** Always `webhook`. */
  object: 'webhook';
  /** Where events are POSTed. */
  url: string;
  /** The subscribed event types. */
  events: EventType[];
  /** Always true on the emulator: a deleted webhook is gone. */
  active: boolean;
  /** ISO 8601 creation time. */
  created_at: string;
  /** The description given at creation, or an empty string. */
  description: string;
  /** The `whsec_…` signing secret. */
  secret: string;
}

/**
 * The emulator's delivery states. The spec shows only `pending`, and shows it on a record with one
 * attempt and a 200 response, so a 2xx leaves the record `pending` (with `delivered_at` set).
 * `failed` is the emulator's own word for "no 2xx and no attempt left"; the spec does not show it.
 */
export type DeliveryStatus = 'pending' | 'failed';

/** One event's delivery record on a webhook, as `GET /v1/webhooks/{id}/deliveries` lists it. */
export interface WebhookDelivery {
  /** The record's id. */
  id: string;
  /** Always `webhook_delivery`. */
  object: 'webhook_delivery';
  /** See {@link DeliveryStatus}: `pending` even once delivered. */
  status: DeliveryStatus;
  /** Attempts made so far, at most {@link MAX_ATTEMPTS}. */
  attempts: number;
  /** ISO 8601 time the record was created. */
  created_at: string;
  /** The event's id (the receiver's dedupe key); a redelivery keeps it. */
  event_id: string;
  /** The event's type. */
  event_type: EventType;
  /** ISO 8601 time of the attempt answered with a 2xx, or null. */
  delivered_at: string | null;
  /** Why the last attempt failed (`HTTP 500`, a time-out, a refused connection), or null. */
  last_error: string | null;
  /** The last attempt's HTTP status, or null when none answered. */
  last_status_code: number | null;
  /** ISO 8601 time of the scheduled retry, or null. */
  next_attempt_at: string | null;
  /** True for a `webhook.test` event from the test route. */
  test: boolean;
}

/** The list envelope the list routes answer with. */
export interface ListOf<T> {
  /** Always `list`. */
  object: 'list';
  /** The items, oldest first. */
  data: T[];
}
