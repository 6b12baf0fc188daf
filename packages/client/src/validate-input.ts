import { type FieldError, ServiceApiError } from './service-api-error.js';
import { WEBHOOK_EVENT_TYPES, type WebhookIn } from './types.js';

/** The spec's limit on a webhook URL, in characters (code points). */
export const MAX_URL_LENGTH = 500;
/** The spec's limit on a webhook description, in characters (code points). */
export const MAX_DESCRIPTION_LENGTH = 200;

const KNOWN = new Set<string>(WEBHOOK_EVENT_TYPES);

/** The spec's limits are in characters: count code points, not UTF-16 units (an emoji is one). */
function characters(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

function refuse(details: FieldError[]): never {
  throw new ServiceApiError(`Invalid input: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}`, {
    status: 422,
    code: 'validation_error',
    details,
    sent: false,
  });
}

/** The spec's limits (section 8), checked before a request is made. */
export function validateWebhookIn(input: WebhookIn, allowInsecureLoopback: boolean): void {
  const errors: FieldError[] = [];
  const { url, events, description } = input ?? ({} as WebhookIn);
  if (typeof url !== 'string' || url === '') {
    errors.push({ field: 'url', message: 'is required' });
  } else if (characters(url) > MAX_URL_LENGTH) {
    errors.push({ field: 'url', message: `must be at most ${MAX_URL_LENGTH} characters` });
  } else {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      errors.push({ field: 'url', message: 'must be an absolute URL' });
    }
    if (parsed && parsed.protocol !== 'https:') {
      const loopbackOk = allowInsecureLoopback && parsed.protocol === 'http:' && isLoopback(parsed.hostname);
      if (!loopbackOk) errors.push({ field: 'url', message: 'must be an HTTPS URL' });
    }
  }
  if (!Array.isArray(events) || events.length === 0) {
    errors.push({ field: 'events', message: 'must be a non-empty array of event types' });
  } else {
    events.forEach((type, i) => {
      if (!KNOWN.has(type))
        errors.push({ field: `events[${i}]`, message: `unknown event type ${JSON.stringify(type)}` });
    });
  }
  if (
    description !== undefined &&
    (typeof description !== 'string' || characters(description) > MAX_DESCRIPTION_LENGTH)
  ) {
    errors.push({
      field: 'description',
      message: `must be a string of at most ${MAX_DESCRIPTION_LENGTH} characters`,
    });
  }
  if (errors.length > 0) refuse(errors);
}

/** Only the spec's prefix is checked: the service issues the ids, and the path segment is encoded. */
export function validateWebhookId(id: string): void {
  if (typeof id !== 'string' || !id.startsWith('wh_') || id.length === 3) {
    refuse([{ field: 'webhook_id', message: 'must be a webhook id (wh_…)' }]);
  }
}
