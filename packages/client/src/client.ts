import { type ClientOptions, resolveClientOptions } from './client-options.js';
import { retryAfterMs } from './retry-after.js';
import { type FieldError, ServiceApiError } from './service-api-error.js';
import type { TokenResponse, WebhookDeliveryList, WebhookIn, WebhookList, WebhookOut } from './types.js';
import { validateWebhookId, validateWebhookIn } from './validate-input.js';

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

interface CachedToken {
  response: TokenResponse;
  /**
   * When to exchange again: `refreshMarginMs` before expiry, the margin capped at half the lifetime.
   * On the local clock from `expires_in`, so a skewed server clock cannot make us use an expired token.
   */
  refreshAtMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function errorFrom(status: number, body: unknown, fallbackCode: string): ServiceApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)
    ?.error;
  const code = typeof error?.code === 'string' ? error.code : fallbackCode;
  const message = typeof error?.message === 'string' ? error.message : `The service answered HTTP ${status}.`;
  const details = Array.isArray(error?.details) ? (error.details as FieldError[]) : undefined;
  return new ServiceApiError(message, { status, code, details });
}

/**
 * fetch says only `fetch failed`; the reason (`connect ECONNREFUSED 127.0.0.1:4010`, `getaddrinfo
 * ENOTFOUND …`) is on its cause, or on the cause's errors when several addresses were tried.
 */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { message?: string; code?: string; errors?: { message?: string }[] } })
    ?.cause;
  const message = cause?.message || cause?.errors?.map((e) => e.message).join('; ') || '';
  if (!cause || message === '') return (error as Error)?.message ?? String(error);
  return cause.code && !message.includes(cause.code) ? `${cause.code} ${message}` : message;
}

function defaultCode(status: number): string {
  if (status === 401) return 'unauthorized';
  if (status === 404) return 'not_found';
  if (status === 422) return 'validation_error';
  if (status === 429) return 'rate_limited';
  return 'http_error';
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
  let cached: CachedToken | undefined;
  let exchanging: Promise<CachedToken> | undefined;

  /** One HTTP call; a 429 is waited out and retried up to `maxRetries` times. */
  async function call(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<Response> {
    for (let retries = 0; ; retries++) {
      let res: Response;
      try {
        res = await opts.fetch(`${opts.baseUrl}${path}`, {
          method,
          headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
          redirect: 'manual',
          signal: AbortSignal.timeout(opts.timeoutMs),
        });
      } catch (error) {
        const timedOut = (error as Error)?.name === 'TimeoutError';
        throw new ServiceApiError(
          timedOut
            ? `${method} ${opts.baseUrl}${path} timed out after ${opts.timeoutMs} ms.`
            : `${method} ${opts.baseUrl}${path} failed: ${networkReason(error)}`,
          { status: 0, code: timedOut ? 'timeout' : 'network_error', cause: error },
        );
      }
      if (res.status !== 429) return res;
      const waitMs = retryAfterMs(res.headers.get('retry-after'), opts.now());
      if (retries >= opts.maxRetries || waitMs > opts.maxRetryWaitMs) {
        const error = errorFrom(429, await readJson(res), 'rate_limited');
        throw new ServiceApiError(error.message, {
          status: 429,
          code: error.code,
          retryAfter: Math.ceil(waitMs / 1000),
        });
      }
      await res.body?.cancel();
      await sleep(waitMs);
    }
  }

  async function exchange(): Promise<CachedToken> {
    const res = await call('POST', '/v1/auth/token', {
      'x-api-key': opts.apiKey,
      accept: 'application/json',
    });
    const body = await readJson(res);
    if (!res.ok) throw errorFrom(res.status, body, defaultCode(res.status));
    const response = body as TokenResponse;
    if (typeof response?.access_token !== 'string' || typeof response.expires_in !== 'number') {
      throw new ServiceApiError('The token exchange answered without access_token / expires_in.', {
        status: res.status,
        code: 'invalid_response',
      });
    }
    const lifetimeMs = response.expires_in * 1000;
    // A margin at or above the lifetime would make every call exchange the key again; the options
    // check it against the spec's 48 h, and this cap also covers a service issuing shorter tokens.
    const marginMs = Math.min(opts.refreshMarginMs, lifetimeMs / 2);
    return { response, refreshAtMs: opts.now() + lifetimeMs - marginMs };
  }

  async function token(): Promise<CachedToken> {
    if (cached && opts.now() < cached.refreshAtMs) return cached;
    // Concurrent callers share one exchange.
    exchanging ??= exchange().finally(() => {
      exchanging = undefined;
    });
    cached = await exchanging;
    return cached;
  }

  async function request(method: string, path: string, body?: unknown): Promise<unknown> {
    let current = await token();
    for (let reexchanged = false; ; reexchanged = true) {
      const res = await call(
        method,
        path,
        { authorization: `Bearer ${current.response.access_token}`, accept: 'application/json' },
        body,
      );
      // A token revoked or expired early on the server side: exchange once more, then give up.
      if (res.status === 401 && !reexchanged) {
        await res.body?.cancel();
        if (cached === current) cached = undefined;
        current = await token();
        continue;
      }
      const parsed = await readJson(res);
      if (!res.ok) throw errorFrom(res.status, parsed, defaultCode(res.status));
      return parsed;
    }
  }

  const webhookPath = (id: string) => `/v1/webhooks/${encodeURIComponent(id)}`;

  return {
    async createWebhook(input) {
      validateWebhookIn(input, opts.allowInsecureLoopback);
      const body: WebhookIn = { url: input.url, events: input.events };
      if (input.description !== undefined) body.description = input.description;
      return (await request('POST', '/v1/webhooks', body)) as WebhookOut;
    },
    async listWebhooks() {
      return (await request('GET', '/v1/webhooks')) as WebhookList;
    },
    async deleteWebhook(webhookId) {
      validateWebhookId(webhookId);
      await request('DELETE', webhookPath(webhookId));
    },
    async listDeliveries(webhookId) {
      validateWebhookId(webhookId);
      return (await request('GET', `${webhookPath(webhookId)}/deliveries`)) as WebhookDeliveryList;
    },
    async testWebhook(webhookId) {
      validateWebhookId(webhookId);
      return request('POST', `${webhookPath(webhookId)}/test`);
    },
    async token() {
      return (await token()).response;
    },
  };
}
