import type { Client } from '@sms-webhooks/client';
import {
  checkDeclaration,
  differences,
  type PublicWebhook,
  type WebhookDeclaration,
  withoutSecret,
} from './declaration.js';
import { optionMistake } from './errors.js';

/**
 * - `created`: no webhook had the URL; `secret` is the new webhook's, shown this once: hand it to the app.
 * - `unchanged`: a webhook with the URL matches the declaration.
 * - `mismatch`: webhooks with the URL exist and none matches; nothing was changed (the service has no
 *   update): `differences` says how each differs; `rotateWebhook` replaces one with the declaration.
 */
export type SyncResult =
  | { action: 'created'; webhook: PublicWebhook; secret: string }
  | { action: 'unchanged'; webhook: PublicWebhook; others: PublicWebhook[] }
  | { action: 'mismatch'; webhooks: { webhook: PublicWebhook; differences: string[] }[] };

/**
 * Makes sure a webhook as declared exists: creates it when no webhook has the URL, leaves a matching
 * one as it is, and reports a mismatch. Webhooks with other URLs are never read past their URL, changed
 * or deleted. Safe to run at every deploy.
 */
export async function syncWebhook(
  client: Pick<Client, 'listWebhooks' | 'createWebhook'>,
  declaration: WebhookDeclaration,
): Promise<SyncResult> {
  if (typeof client?.listWebhooks !== 'function' || typeof client.createWebhook !== 'function') {
    throw optionMistake(
      'syncWebhook(client, declaration): `client` comes from createClient of @sms-webhooks/client.',
    );
  }
  const declared = checkDeclaration(declaration);
  const same = (await client.listWebhooks()).data.filter((w) => w.url === declared.url);
  if (same.length === 0) {
    const created = await client.createWebhook({
      url: declared.url,
      events: [...declared.events],
      ...(declared.description === '' ? {} : { description: declared.description }),
    });
    return { action: 'created', webhook: withoutSecret(created), secret: created.secret };
  }
  const compared = same.map((w) => ({ webhook: withoutSecret(w), differences: differences(w, declared) }));
  const match = compared.find((c) => c.differences.length === 0);
  if (match) {
    return {
      action: 'unchanged',
      webhook: match.webhook,
      others: compared.filter((c) => c !== match).map((c) => c.webhook),
    };
  }
  return { action: 'mismatch', webhooks: compared };
}
