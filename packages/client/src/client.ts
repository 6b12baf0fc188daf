import { createCall } from './client-http.js';
import { type ClientOptions, resolveClientOptions } from './client-options.js';
import { authorizedRequest } from './client-request.js';
import { createTokenSource } from './client-token.js';
import type { TokenResponse, WebhookDeliveryList, WebhookIn, WebhookList, WebhookOut } from './types.js';
import { webhookEndpoints } from './webhook-endpoints.js';

/**
 * The service's webhook API, from {@link createClient}. Every method exchanges or refreshes the token as
 * needed, waits out a 429 up to `maxRetries` times, and rejects with a {@link ServiceApiError}.
 */
export interface Client {
  /**
   * Registers a webhook. The input is checked first (a 422 `validation_error` with `sent: false`, no
   * request made); the answer carries the signing `secret`, which no later call returns.
   */
  createWebhook(input: WebhookIn): Promise<WebhookOut>;
  /** The workspace's webhooks, without their secrets. */
  listWebhooks(): Promise<WebhookList>;
  /** Deletes a webhook; rejects with code `not_found` (404) for an unknown id. */
  deleteWebhook(webhookId: string): Promise<void>;
  /** A webhook's recent deliveries and their attempts; see `deliveryOutcome` to read each one. */
  listDeliveries(webhookId: string): Promise<WebhookDeliveryList>;
  /** Triggers one `webhook.test` event; resolves with the 202 body (its shape is not in the spec). */
  testWebhook(webhookId: string): Promise<unknown>;
  /** The cached token, exchanged or refreshed as needed. */
  token(): Promise<TokenResponse>;
}

/**
 * A client for the service's token exchange and webhook endpoints, on the global `fetch`: it exchanges the
 * API key for a bearer token on first use and refreshes it, waits out rate limits, and throws
 * `ServiceApiError`s with a status and a stable `code`.
 *
 * @example
 * ```ts
 * import { createClient } from '@sms-webhooks/client';
 *
 * const client = createClient({ apiKey: process.env.SMS_API_KEY!, baseUrl: process.env.SMS_API_BASE_URL! });
 * const webhook = await client.createWebhook({
 *   url: 'https://your-app.example/webhooks/sms',
 *   events: ['message.delivered', 'message.failed'],
 * });
 * console.log('store this secret now:', webhook.secret); // only the create response has it
 * ```
 */
export function createClient(options: ClientOptions): Client {
  const opts = resolveClientOptions(options);
  const call = createCall(opts);
  const tokens = createTokenSource(opts, call);
  return {
    ...webhookEndpoints(authorizedRequest(call, tokens), opts.allowInsecureLoopback),
    async token() {
      return (await tokens.current()).response;
    },
  };
}
