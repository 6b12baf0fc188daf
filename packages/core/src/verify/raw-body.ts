import { platform } from '../base/platform/index.js';
import type { RawBody } from '../base/platform/types.js';

export type { RawBody };

export function isRawBody(value: unknown): value is RawBody {
  return typeof value === 'string' || value instanceof Uint8Array;
}

/** Throws a TypeError on bytes that are not valid UTF-8. */
export function rawBodyToString(body: RawBody): string {
  return typeof body === 'string' ? body : platform.decodeUtf8(body);
}

export function rawBodyByteLength(body: RawBody): number {
  return typeof body === 'string' ? platform.utf8ByteLength(body) : body.byteLength;
}
