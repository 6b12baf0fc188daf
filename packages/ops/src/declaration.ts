import { WEBHOOK_EVENT_TYPES, type WebhookEventType, type WebhookOut } from '@sms-webhooks/client';
import { optionMistake } from './errors.js';

/** A webhook as the code declares it; the service has no update, so this is what create sends. */
export interface WebhookDeclaration {
  /** The app's webhook URL; a webhook is found by it. */
  url: string;
  /** The event types to subscribe to, at least one. */
  events: readonly WebhookEventType[];
  /** A note for people; default none. */
  description?: string;
}

/** Checked at once, so a typo fails the deploy step before any request. Events come back sorted, once each. */
export function checkDeclaration(declaration: unknown): Required<WebhookDeclaration> {
  const d = declaration as Partial<WebhookDeclaration> | null;
  if (typeof d !== 'object' || d === null) {
    throw optionMistake('a webhook declaration is { url, events, description? }.');
  }
  if (typeof d.url !== 'string' || d.url === '')
    throw optionMistake('the declaration needs `url`, the HTTPS address.');
  if (!Array.isArray(d.events) || d.events.length === 0) {
    throw optionMistake(`the declaration needs \`events\`, some of ${WEBHOOK_EVENT_TYPES.join(', ')}.`);
  }
  for (const e of d.events) {
    if (!(WEBHOOK_EVENT_TYPES as readonly unknown[]).includes(e)) {
      throw optionMistake(`unknown event type ${JSON.stringify(e)}: use ${WEBHOOK_EVENT_TYPES.join(', ')}.`);
    }
  }
  if (d.description !== undefined && typeof d.description !== 'string') {
    throw optionMistake("the declaration's `description` must be a string.");
  }
  return { url: d.url, events: [...new Set(d.events)].sort(), description: d.description ?? '' };
}

/** How a live webhook differs from the declaration, one phrase per field; empty when it matches. */
export function differences(webhook: WebhookOut, declared: Required<WebhookDeclaration>): string[] {
  const out: string[] = [];
  const events = [...new Set(webhook.events)].sort();
  const missing = declared.events.filter((e) => !events.includes(e));
  const extra = events.filter((e) => !declared.events.includes(e));
  if (missing.length > 0) out.push(`does not subscribe to ${missing.join(', ')}`);
  if (extra.length > 0) out.push(`also subscribes to ${extra.join(', ')}`);
  if ((webhook.description ?? '') !== declared.description) {
    out.push(
      `description is ${JSON.stringify(webhook.description ?? '')}, not ${JSON.stringify(declared.description)}`,
    );
  }
  if (webhook.active === false) out.push('is not active');
  return out;
}

/** The webhook without its `secret` field: what results and reports carry. */
export type PublicWebhook = Omit<WebhookOut, 'secret'>;

export function withoutSecret(webhook: WebhookOut): PublicWebhook {
  const { secret: _secret, ...rest } = webhook;
  return rest;
}
