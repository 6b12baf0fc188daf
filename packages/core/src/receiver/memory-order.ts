import type { OrderClaimResult } from './dedupe-store.js';

interface ObjectRecord {
  /** The newest completed version, or '' before any. */
  version: string;
  /** The token holding the object's lease, or '' when free. */
  token: string;
  /** When the lease ends. */
  leaseEnds: number;
  /** When the record may be forgotten: the end of the lease or of the retention, whichever is later. */
  expires: number;
}

/**
 * MemoryStore's side of `order`: each object's newest completed version and its lease, in one Map.
 * Bounded like the event records: past `maxEntries` the oldest record goes (an expired one first).
 */
export class MemoryOrder {
  readonly #objects = new Map<string, ObjectRecord>();

  constructor(readonly maxEntries: number) {}

  claim(key: string, version: string, token: string, leaseMs: number, now: number): OrderClaimResult {
    let record = this.#live(key, now);
    if (record !== undefined && record.version !== '' && version <= record.version) return 'stale';
    if (record !== undefined && record.token !== '' && record.token !== token && record.leaseEnds > now) {
      return 'in-flight';
    }
    if (record === undefined) {
      this.#makeRoom(now);
      record = { version: '', token: '', leaseEnds: 0, expires: 0 };
      this.#objects.set(key, record);
    }
    record.token = token;
    record.leaseEnds = now + leaseMs;
    record.expires = Math.max(record.expires, record.leaseEnds);
    return 'claimed';
  }

  complete(key: string, version: string, token: string, retainMs: number, now: number): boolean {
    let record = this.#live(key, now);
    if (record === undefined) {
      this.#makeRoom(now);
      record = { version: '', token: '', leaseEnds: 0, expires: 0 };
      this.#objects.set(key, record);
    }
    if (version > record.version) record.version = version;
    record.expires = Math.max(record.expires, now + retainMs);
    const held = record.token === token;
    if (held) {
      record.token = '';
      record.leaseEnds = 0;
    }
    return held;
  }

  release(key: string, token: string, now: number): boolean {
    const record = this.#live(key, now);
    if (record === undefined || record.token !== token) return false;
    record.token = '';
    record.leaseEnds = 0;
    if (record.version === '') this.#objects.delete(key);
    return true;
  }

  renew(key: string, token: string, leaseMs: number, now: number): boolean {
    const record = this.#live(key, now);
    if (record === undefined || record.token !== token || record.leaseEnds <= now) return false;
    record.leaseEnds = now + leaseMs;
    record.expires = Math.max(record.expires, record.leaseEnds);
    return true;
  }

  #live(key: string, now: number): ObjectRecord | undefined {
    const record = this.#objects.get(key);
    if (record !== undefined && record.expires <= now) {
      this.#objects.delete(key);
      return undefined;
    }
    return record;
  }

  /** Past the bound, the oldest record goes: records are only made on a claim, so this is rare. */
  #makeRoom(now: number): void {
    if (this.#objects.size < this.maxEntries) return;
    for (const [key, record] of this.#objects) {
      if (record.expires <= now) this.#objects.delete(key);
    }
    if (this.#objects.size >= this.maxEntries) {
      const oldest = this.#objects.keys().next().value;
      if (oldest !== undefined) this.#objects.delete(oldest);
    }
  }
}
