import { Buffer, isAscii } from 'node:buffer';

/** The request body exactly as received. Strings are taken as UTF-8, as the service sends them. */
export type RawBody = string | Uint8Array;

export function isRawBody(value: unknown): value is RawBody {
  return typeof value === 'string' || value instanceof Uint8Array;
}

// Fatal: invalid UTF-8 is not JSON (RFC 8259 §8.1); a lenient decode would hand handlers U+FFFD in
// place of the bytes that were signed. ignoreBOM keeps a BOM in the text, so JSON.parse refuses it too.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Throws a TypeError on bytes that are not valid UTF-8. */
export function rawBodyToString(body: RawBody): string {
  if (typeof body === 'string') return body;
  // ASCII (most webhook bodies) is valid UTF-8 that reads the same as Latin-1,
  // and a Latin-1 string is a plain copy; the strict decoder is left for bodies that need it.
  if (isAscii(body)) return latin1(body);
  return UTF8.decode(body);
}

function latin1(body: Uint8Array): string {
  return (Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength)).toString(
    'latin1',
  );
}

export function rawBodyByteLength(body: RawBody): number {
  return typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
}
