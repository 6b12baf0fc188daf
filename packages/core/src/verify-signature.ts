import { type KeyObject, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import type { RawBody } from './raw-body.js';
import { computeSignature } from './sign-payload.js';
import { parseSignatureHeader, type SignatureHeader } from './signature-header.js';

export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface VerifySignatureOptions {
  secret: string | readonly string[];
  /** Seconds, checked both ways: a timestamp too far in the future is refused like a stale one. */
  tolerance?: number;
  /** Current time in unix seconds, for tests. */
  now?: number;
}

/** Checks a parsed header against the body; `keys` are the receiver's secrets, any may match. */
export function checkSignature(
  rawBody: RawBody,
  header: SignatureHeader,
  keys: readonly (string | KeyObject)[],
  tolerance: number,
  now: number,
): void {
  if (Math.abs(now - header.timestamp) > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `Signature timestamp is more than ${tolerance} seconds away from the receiver's clock.`,
    );
  }
  for (const key of keys) {
    const expected = computeSignature(header.timestampText, rawBody, key);
    for (const candidate of header.signatures) {
      if (timingSafeEqual(expected, candidate)) return;
    }
  }
  throw new WebhookVerificationError(
    'signature_mismatch',
    'No signature matches the body with any configured secret. Check the webhook secret and that the body is passed unmodified.',
  );
}

/** Verifies the signature header against the raw body; returns the signed timestamp. */
export function verifySignature(
  rawBody: RawBody,
  signatureHeader: string | readonly string[] | undefined,
  options: VerifySignatureOptions,
): number {
  const header = parseSignatureHeader(signatureHeader);
  const keys = typeof options.secret === 'string' ? [options.secret] : options.secret;
  checkSignature(
    rawBody,
    header,
    keys,
    options.tolerance ?? DEFAULT_TOLERANCE_SECONDS,
    options.now ?? Math.floor(Date.now() / 1000),
  );
  return header.timestamp;
}
