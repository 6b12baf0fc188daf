import { platform } from '../base/platform/index.js';
import { WebhookVerificationError } from './errors.js';
import { type HeaderNames, type HeaderSource, readHeader } from './headers.js';
import type { RawBody } from './parse-event.js';
import { type RequestPlace, type TenantSecrets, tenantKey } from './tenant-secrets.js';
import {
  checkTimestamp,
  findDigest,
  parseSignatureHeader,
  type SignatureCheck,
  signatureMismatch,
} from './verify-signature.js';
import { parseVerified, type Verified, verifyDelivery } from './verify-webhook.js';

export { tenantKey };

/**
 * The receiver's verification: with the configured secrets, or with `secret` as a function, the
 * request's tenant's. `check` is the receiver's resolved options, passed as they are.
 */
export function verifyReceived(
  rawBody: RawBody,
  headers: HeaderSource,
  place: RequestPlace,
  check: SignatureCheck & { names: HeaderNames; tenants: TenantSecrets | undefined },
  now: number,
): Promise<Verified> {
  const { tenants } = check;
  if (tenants === undefined) return verifyDelivery(rawBody, headers, check, now);
  return verifyTenantDelivery(rawBody, headers, place, tenants, check, now);
}

/**
 * The receiver's verification with a `secret` function. The header is read and its timestamp checked
 * first (a malformed or replayed request never reaches the lookup), then the request's tenant and its
 * secrets are looked up. An unknown tenant's request is checked against a dummy secret of the same shape
 * and refused only after that comparison fails, so it takes the time of a known tenant's wrong signature:
 * the same HMAC, the same comparison, the same cached (or not) lookup. Nothing is written before.
 */
export async function verifyTenantDelivery(
  rawBody: RawBody,
  headers: HeaderSource,
  place: RequestPlace,
  tenants: TenantSecrets,
  check: { tolerance: number; names: HeaderNames },
  now: number,
): Promise<Verified> {
  const header = parseSignatureHeader(readHeader(headers, check.names.signature));
  checkTimestamp(header, check.tolerance, now);
  const { tenant, secrets } = await tenants.lookup(headers, place);
  const expected = await Promise.all(
    (secrets ?? tenants.dummy).map((s) => platform.sign(s, header.timestampText, rawBody)),
  );
  const secretIndex = findDigest(expected, header);
  // One error either way, made after the same comparison. A dummy secret that matched would need its 192
  // random bits guessed; it is refused all the same.
  if (secrets === undefined || tenant === undefined) throw unknownTenant();
  if (secretIndex < 0) throw signatureMismatch();
  const event = parseVerified(rawBody, headers, check.names);
  return { event, key: tenantKey(tenant, event.id), secretIndex, tenant };
}

function unknownTenant(): WebhookVerificationError {
  return new WebhookVerificationError(
    'unknown_tenant',
    'No webhook is configured for the tenant this request names. Check the URL the webhook was created with.',
  );
}
