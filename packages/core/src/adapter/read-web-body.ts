import { type Clock, systemClock } from '../base/clock.js';
import type { BodyRead } from './entry-refusal.js';

/** What reading a Web `Request` body under the receiver's limits came to (never `aborted`). */
export type WebBodyResult = Exclude<BodyRead<Uint8Array>, { aborted: true }>;

export interface WebBodyLimits {
  maxBodyBytes: number;
  bodyTimeoutMs: number;
  clock?: Clock;
}

function declaredLength(request: Request): number | undefined {
  const value = request.headers.get('content-length');
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/**
 * Reads the body as a stream and stops as soon as it passes `maxBytes`, so an oversized or endless body
 * costs at most `maxBytes` of memory. A declared content-length over the limit is refused unread, and
 * a body still incomplete after `timeoutMs` (a client trickling bytes) is given up on. Web APIs only.
 */
export async function readWebBody(request: Request, limits: WebBodyLimits): Promise<WebBodyResult> {
  const { maxBodyBytes: maxBytes, bodyTimeoutMs: timeoutMs, clock = systemClock } = limits;
  if (request.bodyUsed) return { refused: 'already-used' };
  const declared = declaredLength(request);
  if (declared !== undefined && declared > maxBytes) {
    request.body?.cancel().catch(() => {});
    return { refused: 'too-large' };
  }
  if (request.body === null) return { body: new Uint8Array(0) };

  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let cancel: (() => void) | undefined;
  const late = new Promise<'timed-out'>((resolve) => {
    cancel = clock.setTimer(() => resolve('timed-out'), timeoutMs);
  });
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), late]);
      if (next === 'timed-out') {
        reader.cancel().catch(() => {});
        return { refused: 'timed-out' };
      }
      const { done, value } = next;
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        reader.cancel().catch(() => {});
        return { refused: 'too-large' };
      }
      chunks.push(value);
    }
  } catch {
    return { refused: 'unreadable' };
  } finally {
    cancel?.();
    reader.releaseLock();
  }
  return { body: concat(chunks, total) };
}
