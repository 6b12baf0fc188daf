import { describeValue, optionError } from '../base/option-checks.js';
import type { AnyWebhookEvent } from '../verify/event-types.js';

/** What an `order` function says of an event: the object it updates, and the version it brings. */
export interface OrderKey {
  key: string;
  /** A `Date`, an ISO 8601 string, or a non-negative integer (a sequence number). Newer is greater. */
  version: Date | string | number;
}

/**
 * The receiver's `order` option: `true` orders `message.*` events per message (`data.id`, by
 * `data.updated_at`); a function gives the object and version of any event (undefined: not ordered).
 */
export type OrderOption = boolean | ((event: AnyWebhookEvent) => OrderKey | undefined);

/** An event's slot: the object key and the encoded version (or why the event cannot be ordered). */
export type OrderSlot = { key: string; version: string } | { invalid: string };

/** An event's slot from the `order` option: undefined when the event is not ordered. */
type Slotter = (event: AnyWebhookEvent) => OrderSlot | undefined;

const WIDTH = 15;
const MAX = 10 ** WIDTH - 1;

function pad(n: number): string {
  return String(n).padStart(WIDTH, '0');
}

function instant(value: unknown): number | undefined {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'string') {
    // ISO 8601 only: Date.parse takes other shapes too, each browser its own way.
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value))
      return undefined;
    return Date.parse(value);
  }
  if (typeof value === 'number') return value;
  return undefined;
}

/**
 * A status's place in a message's life, for events of equal `updated_at`: `message.sent` comes before
 * `message.delivered` and `message.failed` (both final, so equal). One digit, after the instant.
 */
const STATUS_RANK: ReadonlyMap<string, number> = new Map([
  ['message.sent', 1],
  ['message.delivered', 2],
  ['message.failed', 2],
]);

/**
 * The total order of the rule: the version, then the status's rank (0 for an `order` function's events),
 * then the event's `created_at`, then its id, so that two different events never tie. The instants as
 * fixed-width digits; the id last, so a longer id cannot reach into the digits.
 */
export function encodeVersion(version: unknown, event: AnyWebhookEvent, rank = 0): string | undefined {
  const at = instant(version);
  if (at === undefined || !Number.isSafeInteger(at) || at < 0 || at > MAX) return undefined;
  const created = instant(event.created_at);
  const tie = created !== undefined && Number.isSafeInteger(created) && created >= 0 ? created : 0;
  return `${pad(at)}.${rank}.${pad(tie)}.${event.id}`;
}

function slotOf(event: AnyWebhookEvent, given: OrderKey | undefined, rank = 0): OrderSlot | undefined {
  if (given === undefined) return undefined;
  if (typeof given?.key !== 'string' || given.key === '') {
    return { invalid: `the order function gave no string key for ${event.id}` };
  }
  const version = encodeVersion(given.version, event, rank);
  if (version === undefined) {
    return {
      invalid: `the version of ${event.id} (${describeValue(given.version)}) is not a Date, an ISO 8601 instant or a non-negative integer`,
    };
  }
  return { key: given.key, version };
}

/**
 * `order: true`: each message's status events, by the message's `updated_at`. A reply
 * (`message.replied`) is not a status of the message but a new inbound object with no later versions,
 * so it is never ordered, nor does it move the message's version.
 */
function messageOrder(event: AnyWebhookEvent): OrderKey | undefined {
  if (!STATUS_RANK.has(event.type)) return undefined;
  const data = event.data as { id?: unknown; updated_at?: unknown };
  return { key: typeof data.id === 'string' ? `message:${data.id}` : '', version: data.updated_at as string };
}

/** The checked option: undefined when ordering is off. */
export function orderOption(value: unknown): Slotter | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return (event) => slotOf(event, messageOrder(event), STATUS_RANK.get(event.type));
  if (typeof value !== 'function') {
    throw optionError(
      'sms-webhooks',
      `\`order\` must be true (message events, latest wins per message) or a function (event) => ({ key, version }), got ${describeValue(value)}.`,
    );
  }
  const given = value as (event: AnyWebhookEvent) => OrderKey | undefined;
  return (event) => slotOf(event, given(event));
}
