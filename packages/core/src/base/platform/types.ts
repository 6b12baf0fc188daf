/** The request body exactly as received. Strings are taken as UTF-8, as the service sends them. */
export type RawBody = string | Uint8Array;

/** HMAC-SHA256 over `${timestampText}.` + body, as 64 lower-case hex characters. */
export type SignFunction = (secret: string, timestampText: string, rawBody: RawBody) => string;

/**
 * What differs between the Node build and the Web build (Workers, Vercel Edge, browsers): the crypto and
 * the byte helpers. Everything else, the whole verification and receiver policy, is shared.
 */
export interface Platform {
  /** HMAC-SHA256 over `${timestampText}.` + body, as 64 lower-case hex characters, on every build. */
  sign(secret: string, timestampText: string, rawBody: RawBody): Promise<string>;
  /**
   * `sign` answered at once: node:crypto's (Node, Bun, Deno). `undefined` in the Web build, whose Web
   * Crypto only answers asynchronously; the synchronous helpers then throw, saying so.
   */
  readonly signSync: SignFunction | undefined;
  /** Constant-time comparison of two digests of 64 hex characters. */
  sameDigest(a: string, b: string): boolean;
  /** Strict UTF-8: throws a TypeError on bytes that are not valid UTF-8. */
  decodeUtf8(bytes: Uint8Array): string;
  utf8ByteLength(text: string): number;
  /** `bytes` random bytes as hex. */
  randomHex(bytes: number): string;
}
