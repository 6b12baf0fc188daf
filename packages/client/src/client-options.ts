import { describeValue, optionError, positiveOption } from '@sms-webhooks/internal';

const OWNER = '@sms-webhooks/client';

/** A configuration mistake, coded as every package's are. */
const mistake = (message: string) => optionError(OWNER, message);

/** What {@link createClient} needs: the API key and the service's address; the rest has defaults. */
export interface ClientOptions {
  /** `sk_live_…` or `sk_test_…`. Sent only to the token exchange, never with other requests. */
  apiKey: string;
  /** The service's base address, e.g. the emulator's `http://127.0.0.1:4010`. */
  baseUrl: string;
  /** Default the global `fetch`. */
  fetch?: typeof fetch;
  /**
   * Refresh the token this long before it expires. Default 5 minutes. Must be below the spec's 48 h
   * token lifetime; for a token the service issues shorter, at most half its lifetime is used.
   */
  refreshMarginMs?: number;
  /** Retries after a 429, each waiting `Retry-After`. Default 2. */
  maxRetries?: number;
  /** A 429 asking for a longer wait than this is thrown at once (with `retryAfter`). Default 60 s. */
  maxRetryWaitMs?: number;
  /** Per-request time-out. Default 30 s. */
  timeoutMs?: number;
  /** Let `createWebhook` accept `http://` URLs on loopback hosts (for the emulator). Default false. */
  allowInsecureLoopback?: boolean;
  /** Epoch ms; for tests. Default `Date.now`. */
  now?: () => number;
}

/** Spec section 8: the token lifetime. A margin this long or longer would refresh on every call. */
const TOKEN_LIFETIME_MS = 48 * 3_600_000;

function checkRefreshMargin(value: unknown): number {
  if (value === undefined) return 5 * 60_000;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value >= TOKEN_LIFETIME_MS) {
    throw mistake(
      `refreshMarginMs must be a number of ms from 0 to below the 48 h token lifetime (${TOKEN_LIFETIME_MS}), got ${describeValue(value)}.`,
    );
  }
  return value;
}

export interface ResolvedClientOptions extends Required<Omit<ClientOptions, 'fetch'>> {
  fetch: typeof fetch;
}

export function resolveClientOptions(options: ClientOptions): ResolvedClientOptions {
  if (typeof options?.apiKey !== 'string' || options.apiKey.trim() === '') {
    throw mistake('apiKey is required (an sk_live_… or sk_test_… key).');
  }
  if (options.apiKey !== options.apiKey.trim()) {
    throw mistake('apiKey has leading or trailing whitespace (a stray newline from a .env file?). Trim it.');
  }
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw mistake(
      `baseUrl must be an absolute URL (the service's, or the emulator's http://127.0.0.1:4010), got ${JSON.stringify(options.baseUrl)}.`,
    );
  }
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') {
    throw mistake('no global fetch (Node 20+), pass options.fetch.');
  }
  return {
    apiKey: options.apiKey,
    baseUrl: base.href.replace(/\/+$/, ''),
    fetch: fetchImpl,
    refreshMarginMs: checkRefreshMargin(options.refreshMarginMs),
    maxRetries: positiveOption('maxRetries', options.maxRetries, 2, {
      owner: OWNER,
      zero: true,
      integer: true,
    }),
    maxRetryWaitMs: positiveOption('maxRetryWaitMs', options.maxRetryWaitMs, 60_000, {
      owner: OWNER,
      zero: true,
      unit: 'ms',
    }),
    timeoutMs: positiveOption('timeoutMs', options.timeoutMs, 30_000, { owner: OWNER, unit: 'ms' }),
    allowInsecureLoopback: options.allowInsecureLoopback ?? false,
    now: options.now ?? Date.now,
  };
}
