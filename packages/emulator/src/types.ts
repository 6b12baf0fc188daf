import type { EventType } from '@sms-webhooks/core';

/** Wire shapes of spec section 2, as the emulator sends them. */
export type TokenMode = 'live' | 'test';

export interface TokenResponse {
  access_token: string;
  expires_at: string;
  expires_in: number;
  mode: TokenMode;
  token_type: 'bearer';
  workspace_id: string;
}

export interface WebhookOut {
  id: string;
  object: 'webhook';
  url: string;
  events: EventType[];
  active: boolean;
  created_at: string;
  description: string;
  secret: string;
}

/**
 * The emulator's delivery states. The spec shows only `pending`, and shows it on a record with one
 * attempt and a 200 response, so a 2xx leaves the record `pending` (with `delivered_at` set).
 * `failed` is the emulator's own word for "no 2xx and no attempt left"; the spec does not show it.
 */
export type DeliveryStatus = 'pending' | 'failed';

export interface WebhookDelivery {
  id: string;
  object: 'webhook_delivery';
  status: DeliveryStatus;
  attempts: number;
  created_at: string;
  event_id: string;
  event_type: EventType;
  delivered_at: string | null;
  last_error: string | null;
  last_status_code: number | null;
  next_attempt_at: string | null;
  test: boolean;
}

export interface ListOf<T> {
  object: 'list';
  data: T[];
}
