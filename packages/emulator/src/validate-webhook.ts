import { type EventType, isKnownEventType } from '@sms-webhooks/core';
import { type FieldError, validationError } from './api-error.js';

/** The spec's limit on a webhook URL, in characters; a longer one is a 422. */
export const MAX_URL_LENGTH = 500;
/** The spec's limit on a webhook description, in characters; a longer one is a 422. */
export const MAX_DESCRIPTION_LENGTH = 200;

export interface WebhookInput {
  url: string;
  events: EventType[];
  description: string;
}

/** The spec's limits are in characters: count code points, not UTF-16 units (an emoji is one). */
export function characters(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

/**
 * True for `localhost`, `127.x.x.x` and `::1`/`[::1]`. The emulator allows `http://` webhook URLs only on these
 * hosts, and when bound to one it answers only requests whose `Host` is one (against DNS rebinding).
 */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

function checkUrl(value: unknown, allowInsecureLoopback: boolean): string | undefined {
  if (typeof value !== 'string' || value === '') return 'is required and must be a string';
  if (characters(value) > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) {
    return allowInsecureLoopback
      ? undefined
      : 'must be an HTTPS URL (plain HTTP to a loopback host needs the emulator flag allowInsecureLoopback)';
  }
  return 'must be an HTTPS URL';
}

/** Checks a WebhookIn body against spec sections 2 and 8; every failing field is reported at once. */
export function validateWebhookIn(
  body: Record<string, unknown> | undefined,
  allowInsecureLoopback: boolean,
): WebhookInput {
  if (body === undefined) throw validationError([{ field: 'body', message: 'is required' }]);
  const errors: FieldError[] = [];
  const urlError = checkUrl(body.url, allowInsecureLoopback);
  if (urlError) errors.push({ field: 'url', message: urlError });

  const events = body.events;
  if (!Array.isArray(events) || events.length === 0) {
    errors.push({ field: 'events', message: 'must be a non-empty array of event types' });
  } else {
    events.forEach((type, i) => {
      if (typeof type !== 'string' || !isKnownEventType(type)) {
        errors.push({ field: `events[${i}]`, message: `unknown event type ${JSON.stringify(type)}` });
      }
    });
  }

  const description = body.description ?? '';
  if (typeof description !== 'string') {
    errors.push({ field: 'description', message: 'must be a string' });
  } else if (characters(description) > MAX_DESCRIPTION_LENGTH) {
    errors.push({ field: 'description', message: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` });
  }

  for (const key of Object.keys(body)) {
    if (key !== 'url' && key !== 'events' && key !== 'description') {
      errors.push({ field: key, message: 'is not a WebhookIn field' });
    }
  }
  if (errors.length > 0) throw validationError(errors);
  // Repeats are folded so one event is never delivered twice to the same webhook.
  return {
    url: body.url as string,
    events: [...new Set(events as EventType[])],
    description: description as string,
  };
}

/** The spec gives only the prefix; the length cap keeps a path parameter from being a whole page. */
const WEBHOOK_ID = /^wh_.{1,200}$/su;

export function checkWebhookId(id: string): void {
  if (!WEBHOOK_ID.test(id)) {
    throw validationError([{ field: 'webhook_id', message: 'must look like wh_…' }]);
  }
}
