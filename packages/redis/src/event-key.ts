import { createHash } from 'node:crypto';

/** Ids up to this many UTF-8 bytes are kept as they are, readable in `redis-cli`. */
export const MAX_RAW_KEY_BYTES = 200;

/**
 * `<prefix><raw><key>`, or `<prefix><hashed><sha256 hex>` for a key past MAX_RAW_KEY_BYTES, so no Redis
 * key grows past a few hundred bytes whatever the payload says. Each kind has its own pair of names, so
 * no two namespaces collide.
 */
function namespaced(prefix: string, raw: string, hashed: string, key: string): string {
  if (Buffer.byteLength(key, 'utf8') <= MAX_RAW_KEY_BYTES) return `${prefix}${raw}${key}`;
  return `${prefix}${hashed}${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

/** `<prefix>id:<event id>`, or `<prefix>sha256:<hex>` for longer ids. */
export function storedKey(prefix: string, id: string): string {
  return namespaced(prefix, 'id:', 'sha256:', id);
}

/** `<prefix>order:<object key>` (the receiver's `order` option), hashed past MAX_RAW_KEY_BYTES as ids are. */
export function orderKey(prefix: string, key: string): string {
  return namespaced(prefix, 'order:', 'order-sha256:', key);
}

/** `<prefix>kept:<event id>` (the receiver's `keepDeliveries`), hashed past MAX_RAW_KEY_BYTES as ids are. */
export function keptKey(prefix: string, id: string): string {
  return namespaced(prefix, 'kept:', 'kept-sha256:', id);
}
