import { WebhookVerificationError } from './errors.js';
import { platform } from './platform/index.js';

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
  signatures: Uint8Array[];
}

const DIGITS = /^\d{1,15}$/;

function malformed(detail: string): never {
  throw new WebhookVerificationError('signature_malformed', `Signature header is malformed: ${detail}.`);
}

/**
 * The header exactly as the service sends it, `t=<digits>,v1=<64 hex>`, without the general parser's
 * split, trims and regexes (a fifth of a 1 KiB verification). Anything else, valid or not, returns
 * undefined and goes through the general parser, so both agree on every input.
 */
export function parseCanonical(text: string): SignatureHeader | undefined {
  if (text.charCodeAt(0) !== 0x74 /* t */ || text.charCodeAt(1) !== 0x3d /* = */) return undefined;
  const comma = text.indexOf(',', 2);
  // 1 to 15 digits, then `,v1=` and 64 characters, and nothing after them
  if (comma < 3 || comma > 17 || text.length !== comma + 68 || !text.startsWith('v1=', comma + 1)) {
    return undefined;
  }
  for (let i = 2; i < comma; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return undefined;
  }
  const signature = platform.hexDigest(text, comma + 4);
  if (signature === undefined) return undefined;
  const timestampText = text.slice(2, comma);
  return { timestampText, timestamp: Number(timestampText), signatures: [signature] };
}

/** Parses `t=<unix>,v1=<hex>[,v1=<hex>…]`. Unknown schemes are skipped so new ones can be added. */
export function parseSignatureHeader(value: string | readonly string[] | undefined): SignatureHeader {
  if (typeof value === 'string') {
    const canonical = parseCanonical(value);
    if (canonical !== undefined) return canonical;
  }
  return parseGeneral(value);
}

/** Every form the header may take; `parseCanonical` is its fast path for the one the service sends. */
export function parseGeneral(value: string | readonly string[] | undefined): SignatureHeader {
  // A repeated header is read as one list, so a second `t` in it is caught as a duplicate below.
  const text = typeof value === 'string' ? value : value === undefined ? '' : value.join(',');
  if (text.trim() === '') {
    throw new WebhookVerificationError('signature_missing', 'Signature header is missing.');
  }
  if (text.length > MAX_SIGNATURE_HEADER_LENGTH) {
    malformed(`longer than ${MAX_SIGNATURE_HEADER_LENGTH} characters`);
  }
  let timestampText: string | undefined;
  const signatures: Uint8Array[] = [];
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
      const signature = platform.hexDigest(val, 0);
      if (signature === undefined) malformed('v1 must be 64 hex characters');
      if (signatures.length === MAX_SIGNATURES) malformed(`more than ${MAX_SIGNATURES} v1 values`);
      signatures.push(signature);
    }
  }
  if (timestampText === undefined) malformed('no t');
  if (signatures.length === 0) malformed('no v1 signature');
  return { timestampText, timestamp: Number(timestampText), signatures };
}
