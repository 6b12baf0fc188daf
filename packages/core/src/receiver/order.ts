import { describeValue, optionError } from '@sms-webhooks/internal';
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
 * The rule's version: the instant, then the status's rank (0 for an `order` function's events), as
 * fixed-width digits so that versions compare as strings. Nothing else: two events of one object with
 * equal instant and rank tie, and both run (see `claimVersion`); on a tie, running an event twice is
 * better than dropping one.
 */
export function encodeVersion(version: unknown, rank = 0): string | undefined {
  const at = instant(version);
  if (at === undefined || !Number.isSafeInteger(at) || at < 0 || at > MAX) return undefined;
  return `${pad(at)}.${rank}`;
}

/**
 * What `claimOrder` is asked with for an event of `version`: just past it. The store answers `stale`
 * when a completed version is not older than what it is asked, so a completed version equal to the
 * event's (a tie) lets it run, and any newer one makes it stale. Every version has the same length, so
 * no newer version sorts below this one; `~` also sorts past a version completed before ties ran
 * (instant and rank, then `.created_at.id`).
 */
export function claimVersion(version: string): string {
  return `${version}~`;
}

function slotOf(event: AnyWebhookEvent, given: OrderKey | undefined, rank = 0): OrderSlot | undefined {
  if (given === undefined) return undefined;
  if (typeof given?.key !== 'string' || given.key === '') {
    return { invalid: `the order function gave no string key for ${event.id}` };
  }
  const version = encodeVersion(given.version, rank);
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
