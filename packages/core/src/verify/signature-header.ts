import { WebhookVerificationError } from './errors.js';

/**
 * Bounds on what an unauthenticated caller can make us parse. Several `v1` values exist for secret
 * rotation; nobody rotates through more than a handful at once.
 */
export const MAX_SIGNATURE_HEADER_LENGTH = 4096;
export const MAX_SIGNATURES = 16;

export interface SignatureHeader {
  /** `t` exactly as sent: it is part of the signed string, so leading zeros must survive. */
  timestampText: string;
  timestamp: number;
  /** Each `v1` value as 64 lower-case hex characters, the form digests are compared in. */
  signatures: string[];
}

const DIGITS = /^\d{1,15}$/;
const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;

function malformed(detail: string): never {
  throw new WebhookVerificationError('signature_malformed', `Signature header is malformed: ${detail}.`);
}

/**
 * Parses `t=<unix>,v1=<hex>[,v1=<hex>…]` in every form the header may take. Unknown schemes are skipped
 * so new ones can be added. (The exact form the service sends is checked faster, in canonical-signature.ts.)
 */
export function parseSignatureHeader(value: string | readonly string[] | undefined): SignatureHeader {
  // A repeated header is read as one list, so a second `t` in it is caught as a duplicate below.
  const text = typeof value === 'string' ? value : value === undefined ? '' : value.join(',');
  if (text.trim() === '') {
    throw new WebhookVerificationError('signature_missing', 'Signature header is missing.');
  }
  if (text.length > MAX_SIGNATURE_HEADER_LENGTH) {
    malformed(`longer than ${MAX_SIGNATURE_HEADER_LENGTH} characters`);
  }
  let timestampText: string | undefined;
  const signatures: string[] = [];
  for (const rawItem of text.split(',')) {
    const item = rawItem.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    if (eq <= 0) malformed('every item must be key=value');
    const key = item.slice(0, eq).trim();
    const val = item.slice(eq + 1).trim();
    if (key === 't') {
      if (timestampText !== undefined) malformed('more than one t');
      if (!DIGITS.test(val)) malformed('t must be unix seconds, digits only');
      timestampText = val;
    } else if (key === 'v1') {
      if (!HEX_DIGEST.test(val)) malformed('v1 must be 64 hex characters');
      if (signatures.length === MAX_SIGNATURES) malformed(`more than ${MAX_SIGNATURES} v1 values`);
      signatures.push(val.toLowerCase());
    }
  }
  if (timestampText === undefined) malformed('no t');
  if (signatures.length === 0) malformed('no v1 signature');
  return { timestampText, timestamp: Number(timestampText), signatures };
}
