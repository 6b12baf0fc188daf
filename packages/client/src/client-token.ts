import { type Call, defaultCode, errorFrom, readJson } from './client-http.js';
import type { ResolvedClientOptions } from './client-options.js';
import { ServiceApiError } from './service-api-error.js';
import type { TokenResponse } from './types.js';

/** A token and when to exchange the key again. */
export interface CachedToken {
  response: TokenResponse;
  /**
   * When to exchange again: `refreshMarginMs` before expiry, the margin capped at half the lifetime.
   * On the local clock from `expires_in`, so a skewed server clock cannot make us use an expired token.
   */
  refreshAtMs: number;
}

/** The bearer token, exchanged from the API key on first use and again before it expires. */
export interface TokenSource {
  /** The cached token, exchanged or refreshed as needed; concurrent callers share one exchange. */
  current(): Promise<CachedToken>;
  /** Drops `token` from the cache (the service refused it), unless another has replaced it already. */
  forget(token: CachedToken): void;
}

/** The token cache of one client. */
export function createTokenSource(opts: ResolvedClientOptions, call: Call): TokenSource {
  let cached: CachedToken | undefined;
  let exchanging: Promise<CachedToken> | undefined;

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

  return {
    async current() {
      if (cached && opts.now() < cached.refreshAtMs) return cached;
      exchanging ??= exchange().finally(() => {
        exchanging = undefined;
      });
      cached = await exchanging;
      return cached;
    },
    forget(token) {
      if (cached === token) cached = undefined;
    },
  };
}
