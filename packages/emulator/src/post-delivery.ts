import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface PostResult {
  statusCode: number | null;
  error: string | null;
  /** The start of the receiver's answer, for logs. */
  responseBody: string;
}

/** What a receiver may answer before we stop reading; only the start is kept for `last_error`. */
const KEPT_RESPONSE_CHARS = 200;

/**
 * One delivery attempt. Redirects are not followed (a 3xx is a failed attempt, as a moved endpoint
 * must be re-registered); the time-out covers the whole exchange, not only the connect.
 */
export function postDelivery(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<PostResult> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const finish = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        signal,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < KEPT_RESPONSE_CHARS) text += chunk;
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const snippet = text.slice(0, KEPT_RESPONSE_CHARS).trim();
          if (status >= 200 && status < 300)
            return finish({ statusCode: status, error: null, responseBody: snippet });
          const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
          finish({
            statusCode: status,
            error: `HTTP ${status}${redirect}${snippet ? `: ${snippet}` : ''}`,
            responseBody: snippet,
          });
        });
        res.on('error', (e) =>
          finish({ statusCode: res.statusCode ?? null, error: e.message, responseBody: '' }),
        );
      },
    );
    const timer = setTimeout(() => {
      finish({ statusCode: null, error: `timed out after ${timeoutMs} ms`, responseBody: '' });
      req.destroy();
    }, timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) =>
      finish({
        statusCode: null,
        error: e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : e.message,
        responseBody: '',
      }),
    );
    req.end(body);
  });
}
