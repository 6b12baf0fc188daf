import { createHash } from 'node:crypto';

/** Ids up to this many UTF-8 bytes are kept as they are, readable in `psql`. */
export const MAX_RAW_KEY_BYTES = 200;

const HASHED = 'sha256:';

/**
 * The value of the `key` column for an event id: the id itself, or `sha256:<hex>` for an id that is
 * longer than MAX_RAW_KEY_BYTES, holds what a `text` column cannot (NUL, a lone surrogate) or starts
 * with `sha256:` itself, so the two forms cannot collide and no key grows past a few hundred bytes.
 */
export function storedKey(id: string): string {
  if (
    Buffer.byteLength(id, 'utf8') <= MAX_RAW_KEY_BYTES &&
    !id.startsWith(HASHED) &&
    !id.includes('\0') &&
    !/\p{Cs}/u.test(id)
  ) {
    return id;
  }
  return `${HASHED}${createHash('sha256').update(id, 'utf8').digest('hex')}`;
}
