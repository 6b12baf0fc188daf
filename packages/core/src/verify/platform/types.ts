/** The request body exactly as received. Strings are taken as UTF-8, as the service sends them. */
export type RawBody = string | Uint8Array;

/**
 * An HMAC-SHA256 digest as 64 lower-case hex characters, the form the header carries it in: at once from
 * node:crypto, later from Web Crypto (which has only async calls).
 */
export type Digest = string | Promise<string>;

/** A webhook secret prepared for HMAC-SHA256 over `${t}.` + body. */
export interface SigningKey {
  sign(timestampText: string, rawBody: RawBody): Digest;
}

/**
 * What differs between the Node build and the Web build (Workers, Vercel Edge, browsers): the crypto and
 * the byte helpers. Everything else, the whole verification and receiver policy, is shared.
 */
export interface Platform {
  /** False where HMAC is only asynchronous (Web Crypto): the synchronous helpers then throw, saying so. */
  readonly syncHmac: boolean;
  readonly HmacKey: new (secret: string | Uint8Array) => SigningKey;
  /** Strict UTF-8: throws a TypeError on bytes that are not valid UTF-8. */
  decodeUtf8(bytes: Uint8Array): string;
  utf8ByteLength(text: string): number;
  /** `bytes` random bytes as hex. */
  randomHex(bytes: number): string;
  /** A signature (hex) made with a node:crypto KeyObject, or undefined when `secret` is not one. */
  keyObjectDigest(secret: unknown, timestampText: string, rawBody: RawBody): string | undefined;
}
