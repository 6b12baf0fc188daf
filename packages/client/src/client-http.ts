import type { ResolvedClientOptions } from './client-options.js';
import { retryAfterMs } from './retry-after.js';
import { type FieldError, ServiceApiError } from './service-api-error.js';

/** One HTTP call to the service, with `body` sent as JSON when given. */
export type Call = (
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) => Promise<Response>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The answer's body: JSON when it parses, else its text; undefined when empty. */
export async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The service's error body as a {@link ServiceApiError}; `fallbackCode` when it carries none. */
export function errorFrom(status: number, body: unknown, fallbackCode: string): ServiceApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)
    ?.error;
  const code = typeof error?.code === 'string' ? error.code : fallbackCode;
  const message = typeof error?.message === 'string' ? error.message : `The service answered HTTP ${status}.`;
  const details = Array.isArray(error?.details) ? (error.details as FieldError[]) : undefined;
  return new ServiceApiError(message, { status, code, details });
}

/** The code of an error answer whose body names none. */
export function defaultCode(status: number): string {
  if (status === 401) return 'unauthorized';
  if (status === 404) return 'not_found';
  if (status === 422) return 'validation_error';
  if (status === 429) return 'rate_limited';
  return 'http_error';
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

/** HTTP calls to `opts.baseUrl`: a 429 is waited out and retried up to `maxRetries` times. */
export function createCall(opts: ResolvedClientOptions): Call {
  return async (method, path, headers, body) => {
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
  };
}
