/** The request body exactly as received. Strings are taken as UTF-8, as the service sends them. */
export type RawBody = string | Uint8Array;

/** A secret as node:crypto's createHmac takes it: a string, or a KeyObject made by createSecretKey. */
export type HmacSecret = string | { readonly type: string };

/**
 * What differs between the Node build and the Web build (Workers, Vercel Edge, browsers): the crypto and
 * the byte helpers. Everything else, the whole verification and receiver policy, is shared.
 */
export interface Platform {
  /** False where HMAC is only asynchronous (Web Crypto): the synchronous helpers then throw, saying so. */
  readonly syncHmac: boolean;
  /** HMAC-SHA256 over `${timestampText}.` + body as 64 lower-case hex characters; a promise on Web Crypto. */
  sign(secret: HmacSecret, timestampText: string, rawBody: RawBody): string | Promise<string>;
  /** Constant-time comparison of two digests of 64 hex characters. */
  sameDigest(a: string, b: string): boolean;
  /** Strict UTF-8: throws a TypeError on bytes that are not valid UTF-8. */
  decodeUtf8(bytes: Uint8Array): string;
  utf8ByteLength(text: string): number;
  /** `bytes` random bytes as hex. */
  randomHex(bytes: number): string;
}
