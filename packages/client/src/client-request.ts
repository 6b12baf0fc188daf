import { type Call, defaultCode, errorFrom, readJson } from './client-http.js';
import type { TokenSource } from './client-token.js';

/** A call to a webhook endpoint with the bearer token; resolves with the answer's body. */
export type AuthorizedRequest = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** Requests with the current token; a 401 exchanges the key once more before it is thrown. */
export function authorizedRequest(call: Call, tokens: TokenSource): AuthorizedRequest {
  return async (method, path, body) => {
    let current = await tokens.current();
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
        tokens.forget(current);
        current = await tokens.current();
        continue;
      }
      const parsed = await readJson(res);
      if (!res.ok) throw errorFrom(res.status, parsed, defaultCode(res.status));
      return parsed;
    }
  };
}
