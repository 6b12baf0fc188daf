import { optionError } from '@sms-webhooks/internal';
import { platform } from '../base/platform/index.js';
import { WebhookVerificationError } from './errors.js';
import type { AnyWebhookEvent } from './event-types.js';
import { type HeaderNames, type HeaderSource, headerNames, readHeader } from './headers.js';
import { checkEventHeaders, isRawBody, parseEvent, type RawBody } from './parse-event.js';
import { type RequestPlace, type TenantSecrets, tenantKey } from './tenant-secrets.js';
import { checkHeaderPrefix } from './verify-options.js';
import {
  checkSignature,
  checkTimestamp,
  matchSignature,
  parseSignatureHeader,
  signatureMismatch,
} from './verify-signature.js';

/** What {@link verifyWebhook} checks a delivery against. */
export interface VerifyWebhookOptions {
  /** The webhook's `whsec_…` secret, or several during a rotation. */
  secret: string | readonly string[];
  /** Seconds, both directions. Default 300. */
  tolerance?: number;
  /** Default `x-service`, giving `x-service-signature`, `x-service-event-id`, … */
  headerPrefix?: string;
  /** Current time in unix seconds, for tests. */
  now?: number;
}

/** The event of a body whose signature was checked: the envelope, then the id and type headers. */
function parseVerified(rawBody: RawBody, headers: HeaderSource, names: HeaderNames): AnyWebhookEvent {
  const event = parseEvent(rawBody);
  checkEventHeaders(event, headers, names);
  return event;
}

/** A delivery the receiver verified: its event, the store key it is deduplicated under, which secret signed it. */
export interface Verified {
  event: AnyWebhookEvent;
  /** The event id, or with a `secret` function the tenant and the event id (tenantKey). */
  key: string;
  /** The index of the matched secret in the configured list (or the one the `secret` function returned). */
  secretIndex: number;
  /** With a `secret` function: the tenant the request named. */
  tenant?: string;
}

/** The receiver's resolved options that verification reads. */
export interface ReceivedCheck {
  /** Empty with `secret` as a function: then `tenants` looks them up per request. */
  secrets: readonly string[];
  tolerance: number;
  names: HeaderNames;
  tenants: TenantSecrets | undefined;
}

/**
 * The receiver's verification, on every platform and for one secret, several or a tenant's: the header is
 * parsed and its timestamp checked first (a malformed or replayed request never reaches a tenant lookup),
 * then the signatures, then the envelope (nothing in an unsigned body is looked at). Rejects with
 * WebhookVerificationError.
 *
 * An unknown tenant's request is checked against a dummy secret of the same shape and refused only after
 * that comparison fails, so it takes the time of a known tenant's wrong signature: the same HMAC, the same
 * comparison, the same cached (or not) lookup. Nothing is written before.
 */
export async function verifyReceived(
  rawBody: RawBody,
  headers: HeaderSource,
  place: RequestPlace,
  check: ReceivedCheck,
  now: number,
): Promise<Verified> {
  const header = parseSignatureHeader(readHeader(headers, check.names.signature));
  checkTimestamp(header, check.tolerance, now);
  let secrets = check.secrets;
  let tenant: string | undefined;
  let unknownTenant = false;
  if (check.tenants !== undefined) {
    const found = await check.tenants.lookup(headers, place);
    tenant = found.tenant;
    unknownTenant = found.secrets === undefined;
    secrets = found.secrets ?? check.tenants.dummy;
  }
  const { signSync } = platform;
  const expected =
    signSync === undefined
      ? await Promise.all(secrets.map((s) => platform.sign(s, header.timestampText, rawBody)))
      : secrets.map((s) => signSync(s, header.timestampText, rawBody));
  const secretIndex = matchSignature(header, expected);
  // One error either way, made after the same comparison. A dummy secret that matched would need its 192
  // random bits guessed; it is refused all the same.
  if (unknownTenant) throw unknownTenantError();
  if (secretIndex < 0) throw signatureMismatch();
  const event = parseVerified(rawBody, headers, check.names);
  if (tenant === undefined) return { event, key: event.id, secretIndex };
  return { event, key: tenantKey(tenant, event.id), secretIndex, tenant };
}

function unknownTenantError(): WebhookVerificationError {
  return new WebhookVerificationError(
    'unknown_tenant',
    'No webhook is configured for the tenant this request names. Check the URL the webhook was created with.',
  );
}

/**
 * Verifies a delivery and returns its event; throws `WebhookVerificationError` with a stable `code`.
 * `rawBody` must be the bytes exactly as received: a parsed and re-serialised body will not match.
 * Bad options (empty or padded secret, non-positive or NaN tolerance, …) throw a TypeError first, with
 * the same checks and messages as createReceiver.
 */
export function verifyWebhook(
  rawBody: RawBody,
  headers: HeaderSource,
  options: VerifyWebhookOptions,
): AnyWebhookEvent {
  if (!isRawBody(rawBody)) {
    throw optionError(
      'sms-webhooks',
      'verifyWebhook needs the raw body (string, Buffer or Uint8Array). Got an already-parsed value: read the body before any JSON parser runs.',
    );
  }
  const names = headerNames(checkHeaderPrefix(options?.headerPrefix));
  checkSignature(rawBody, readHeader(headers, names.signature), options, 'verifyWebhook');
  return parseVerified(rawBody, headers, names);
}
