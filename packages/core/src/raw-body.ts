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
  return UTF8.decode(body);
}

export function rawBodyByteLength(body: RawBody): number {
  return typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
}
