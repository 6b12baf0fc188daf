import { createHmac, randomBytes } from 'node:crypto';
import { signPayload } from '@sms-webhooks/core';

export const BENCH_SECRET = 'whsec_bench_0123456789abcdefghijklmnopqrstuv';

/** A 32-character event id, as the service sends them (`evt_` + 28 characters). */
export function eventId(n: number, namespace = ''): string {
  const tail = `${namespace}${n.toString(36)}`;
  return `evt_${tail.padStart(28, '0').slice(-28)}`;
}

export function uniqueNamespace(): string {
  return randomBytes(4).toString('hex');
}

/**
 * A `message.delivered` event whose JSON is `size` bytes (within a few bytes for small sizes): past the
 * envelope, the padding is an array of small records, like a real batch payload, not one long string
 * that JSON.parse would skim through.
 */
export function eventBody(size: number, id: string, createdAt = new Date().toISOString()): string {
  const event = {
    id,
    object: 'event',
    type: 'message.delivered',
    api_version: 'v1',
    created_at: createdAt,
    test: false,
    data: {
      id: 'msg_5f0c1e2d3b4a59687f8e9d0c',
      sms_id: 'sms_0a1b2c3d4e5f60718293a4b5',
      to: '+15555550123',
      status: 'delivered',
      error: null,
      kind: 'utility',
      updated_at: createdAt,
      metadata: { order_id: 'ord_1234', lines: [] as { n: number; note: string }[] },
    },
  };
  let body = JSON.stringify(event);
  const lines = event.data.metadata.lines;
  const note = 'Your parcel is out for delivery, reply STOP to opt out'.repeat(2);
  while (body.length < size) {
    const room = size - body.length;
    if (room > 160) {
      // As many whole records as surely fit, at once: one stringify per batch, not per record (a 1 MiB
      // body took seconds one record at a time).
      const each = JSON.stringify({ n: lines.length + 1_000_000, note }).length + 1;
      const batch = Math.max(1, Math.floor((room - 160) / each));
      for (let i = 0; i < batch; i++) lines.push({ n: lines.length, note });
    } else {
      lines.push({ n: lines.length, note: 'x'.repeat(Math.max(0, room - 20)) });
    }
    body = JSON.stringify(event);
  }
  return body;
}

export interface SignedRequest {
  body: Buffer;
  headers: Record<string, string>;
}

/** Headers as Node's parser would hand them over for a delivery (lower-case names). */
export function deliveryHeaders(
  body: string | Buffer,
  id: string,
  timestamp?: number,
): Record<string, string> {
  return {
    host: '127.0.0.1',
    'user-agent': 'SMS-Service-Webhooks/1.0',
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'x-service-signature': signPayload(body, BENCH_SECRET, { timestamp }),
    'x-service-event-id': id,
    'x-service-event-type': 'message.delivered',
    'x-service-delivery-attempt': '1',
  };
}

/** `count` deliveries of `size` bytes with unique ids, signed now. */
export function signedRequests(count: number, size: number, namespace = uniqueNamespace()): SignedRequest[] {
  const template = eventBody(size, eventId(0, namespace));
  const out: SignedRequest[] = [];
  const marker = eventId(0, namespace);
  for (let i = 0; i < count; i++) {
    const id = eventId(i, namespace);
    const text = template.replace(marker, id);
    out.push({ body: Buffer.from(text), headers: deliveryHeaders(text, id) });
  }
  return out;
}

/** The same scheme by hand, for contenders that sign without core (standardwebhooks has its own). */
export function hmacHex(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex');
}
