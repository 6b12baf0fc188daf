import type { AdapterReceiver, Receiver, WaitUntil } from '../receiver/receiver.js';
import type { ReceiverResponse } from '../receiver/responses.js';
import { refuseEntry } from './entry-refusal.js';
import { internalError } from './internal-error.js';
import { readWebBody } from './read-web-body.js';

export type { WaitUntil };

/** What {@link handleWebRequest} takes besides the request, for the platform and a tenant `secret`. */
export interface WebRequestOptions {
  /** Given the background handler run of an accepted event ('immediately' mode). */
  waitUntil?: WaitUntil;
  /** The route's parameters (`/webhooks/sms/:tenant` gives `{ tenant }`), for a receiver's `secret` function. */
  params?: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The URL a `secret` function sees the path of, when not the request's own (Lambda's event path). */
  url?: string;
}

/** Logged (once) when the Web entry gets a `Request` whose body was already read. */
export const BODY_USED_HINT =
  'sms-webhooks: the request body was already read before the webhook handler, so its signature cannot be checked. ' +
  'Pass the untouched Request (in Hono: c.req.raw, without calling c.req.json() or a body validator first).';

function toResponse(res: ReceiverResponse): Response {
  return new Response(res.body, { status: res.status, headers: res.headers });
}

/**
 * The Web entry point: one `Request` in, one `Response` out, with Web APIs only (Workers, Deno, Bun,
 * Vercel Edge, Next.js, Hono). It owns the method check, the bounded read (limit, declared length,
 * time-out) and every answer; the receiver owns verification and everything after.
 */
export async function handleWebRequest(
  receiver: Receiver,
  request: Request,
  options: WebRequestOptions = {},
): Promise<Response> {
  // Every receiver from createReceiver has the adapter face; adapters check it at start-up (checkReceiver).
  const entry = receiver as AdapterReceiver;
  if (request.method !== 'POST') {
    request.body?.cancel().catch(() => {});
    return toResponse(refuseEntry(entry, 'method', BODY_USED_HINT));
  }
  // At maxConcurrency with a full wait list: answered without reading the body.
  const busy = entry.overloaded?.();
  if (busy !== undefined) {
    request.body?.cancel().catch(() => {});
    return toResponse(busy);
  }
  const read = await readWebBody(request, receiver.options);
  if ('refused' in read) return toResponse(refuseEntry(entry, read.refused, BODY_USED_HINT));
  const res = await receiver
    .handle({
      rawBody: read.body,
      headers: request.headers,
      waitUntil: options.waitUntil,
      params: options.params,
      url: options.url ?? request.url,
    })
    .catch((error: unknown) => internalError(receiver, error));
  return toResponse(res);
}
