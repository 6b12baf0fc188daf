import { WebhookVerificationError } from './errors.js';

export function signatureMismatch(): never {
  throw new WebhookVerificationError(
    'signature_mismatch',
    'No signature matches the body with any configured secret. Check the webhook secret and that the body is passed unmodified.',
  );
}

/**
 * Constant-time comparison of a digest (64 lower-case hex characters) with the 64 characters of `text`
 * from `start`: every character is looked at, whatever differs, so the time taken says nothing about
 * where. Reading `text` in place spares the copy a slice of the header would be.
 */
export function hexDigestEquals(digest: string, text: string, start = 0): boolean {
  if (digest.length !== 64 || text.length - start < 64) return false;
  // Four accumulators, four characters a step: a quarter of the loop's overhead, the same work.
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  for (let i = 0; i < 64; i += 4) {
    const j = start + i;
    a |= digest.charCodeAt(i) ^ text.charCodeAt(j);
    b |= digest.charCodeAt(i + 1) ^ text.charCodeAt(j + 1);
    c |= digest.charCodeAt(i + 2) ^ text.charCodeAt(j + 2);
    d |= digest.charCodeAt(i + 3) ^ text.charCodeAt(j + 3);
  }
  return (a | b | c | d) === 0;
}
