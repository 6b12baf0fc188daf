import { Buffer } from 'node:buffer';
import { hash } from 'node:crypto';

const BLOCK = 64;

/**
 * The verification floor of issue 28: HMAC-SHA256 of `${t}.` + body as two one-shot `crypto.hash`
 * digests over the key's padded blocks, derived once (RFC 2104), then `JSON.parse`; no header parsing
 * beyond what the caller hands in, no comparison, no checks. The cheapest way node:crypto has to sign a
 * delivery, whatever its size: a reused buffer, grown to the largest body seen.
 */
export class PaddedKeyFloor {
  readonly #inner = Buffer.alloc(BLOCK);
  readonly #outer = Buffer.alloc(BLOCK + 32);
  #scratch = Buffer.alloc(0);

  constructor(secret: string) {
    const key = Buffer.from(secret, 'utf8');
    if (key.length > BLOCK) throw new RangeError('the floor takes secrets up to 64 bytes');
    for (let i = 0; i < BLOCK; i++) {
      this.#inner[i] = (key[i] ?? 0) ^ 0x36;
      this.#outer[i] = (key[i] ?? 0) ^ 0x5c;
    }
  }

  /** The 32-byte MAC as a Latin-1 string, and the parsed body. */
  verify(timestamp: string, body: Buffer): { mac: string; event: unknown } {
    const length = BLOCK + timestamp.length + 1 + body.length;
    if (this.#scratch.length < length) {
      this.#scratch = Buffer.allocUnsafe(length);
      this.#inner.copy(this.#scratch, 0);
    }
    this.#scratch.write(timestamp, BLOCK, 'latin1');
    this.#scratch[BLOCK + timestamp.length] = 0x2e;
    body.copy(this.#scratch, BLOCK + timestamp.length + 1);
    this.#outer.write(hash('sha256', this.#scratch.subarray(0, length), 'binary'), BLOCK, 'latin1');
    const mac = hash('sha256', this.#outer, 'binary');
    return { mac, event: JSON.parse(body.toString('utf8')) };
  }
}
