import type { TestDelivery } from '@sms-webhooks/core';

/** The full `v1` signature hex of each delivery: what the receiver computes and compares. */
export function signaturesOf(deliveries: readonly TestDelivery<'message.delivered'>[]): string[] {
  return deliveries.flatMap((d) =>
    [...(d.headers['x-service-signature'] ?? '').matchAll(/v1=([0-9a-f]{64})/g)].map((m) => m[1]!),
  );
}

/**
 * What of `secret` (with or without its `whsec_` prefix) or of `signatures` appears in `text`.
 * Thousands of signatures against a long log: index every 64-character window of each hex run once
 * instead of searching the text once per signature.
 */
export function findLeaks(text: string, secret: string, signatures: readonly string[]): string[] {
  const leaks = [secret, secret.replace(/^whsec_/, '')].filter((s) => text.includes(s));
  const windows = new Set<string>();
  for (const [run] of text.toLowerCase().matchAll(/[0-9a-f]{64,}/g)) {
    for (let i = 0; i + 64 <= run.length; i++) windows.add(run.slice(i, i + 64));
  }
  for (const s of signatures) if (windows.has(s)) leaks.push(`signature ${s.slice(0, 8)}…`);
  return leaks;
}
