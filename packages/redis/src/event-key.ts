import { createHash } from 'node:crypto';

/** Ids up to this many UTF-8 bytes are kept as they are, readable in `redis-cli`. */
export const MAX_RAW_KEY_BYTES = 200;

/**
 * `<prefix>id:<event id>`, or `<prefix>sha256:<hex>` for longer ids, so no key grows past a few
 * hundred bytes whatever the payload says. The two namespaces cannot collide.
 */
export function storedKey(prefix: string, id: string): string {
  if (Buffer.byteLength(id, 'utf8') <= MAX_RAW_KEY_BYTES) return `${prefix}id:${id}`;
  return `${prefix}sha256:${createHash('sha256').update(id, 'utf8').digest('hex')}`;
}

/** `<prefix>order:<object key>` (the receiver's `order` option), hashed past MAX_RAW_KEY_BYTES as ids are. */
export function orderKey(prefix: string, key: string): string {
  if (Buffer.byteLength(key, 'utf8') <= MAX_RAW_KEY_BYTES) return `${prefix}order:${key}`;
  return `${prefix}order-sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

/** `<prefix>kept:<event id>` (the receiver's `keepDeliveries`), hashed past MAX_RAW_KEY_BYTES as ids are. */
export function keptKey(prefix: string, id: string): string {
  if (Buffer.byteLength(id, 'utf8') <= MAX_RAW_KEY_BYTES) return `${prefix}kept:${id}`;
  return `${prefix}kept-sha256:${createHash('sha256').update(id, 'utf8').digest('hex')}`;
}
