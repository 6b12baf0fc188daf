import type { Client } from '@sms-webhooks/client';
import { type DedupeStore, tenantKey } from '@sms-webhooks/core/store';
import type { FailedJobInfo } from './audit-report.js';
import type { HandledTypes } from './coverage.js';
import { checkStore, optionMistake, positiveMs } from './errors.js';

/** What {@link auditWebhook} compares: the service's delivery records for the webhook, and the receiver's store. */
export interface AuditOptions {
  /** A client of @sms-webhooks/client (`createClient`); only `listDeliveries` is called. */
  client: Pick<Client, 'listDeliveries'>;
  /**
   * The webhook's `wh_…` id, or the ids of every webhook delivering to the app (during a rotation, the
   * old and the replacement): an event delivered through any of them counts as delivered.
   */
  webhookId: string | readonly string[];
  /** The receiver's dedupe store (Memory, Redis, PostgreSQL, or yours with `inspect`). */
  store: DedupeStore;
  /**
   * Put before each event id to make the store key, as the receiver does. Default '' (the receiver claims
   * the bare event id; a RedisStore's own `prefix` is applied inside the store).
   */
  keyPrefix?: string;
  /** The receiver (or what it handles): events of types it does not handle are answered 200 and never stored. */
  receiver?: {
    /** The types the receiver has handlers for; `receiver.handledTypes()`. */
    handledTypes(): HandledTypes;
  };
  /**
   * The tenant whose webhook this is, when the receiver's `secret` is a function (many tenants on one
   * route): its store keys are the tenant, URI-encoded, a slash and the event id (`tenantKey`), as the
   * receiver writes them.
   */
  tenant?: string;
  /** Called after each batch of store reads (500 keys), for progress on a long audit. */
  onProgress?(read: number, total: number): void;
  /** Reads a queue's failed set for an event: `(id) => findFailed(queue, id)`. */
  findFailed?: (eventId: string) => Promise<FailedJobInfo | undefined>;
  /** How long the receiver keeps completed records (its `retainMs`). Older deliveries are left out. Default 24 h. */
  retainMs?: number;
  /** Milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The options checked, with their defaults, and the store key of an event as the receiver writes it. */
export function checkOptions(options: AuditOptions) {
  if (typeof options !== 'object' || options === null) {
    throw optionMistake('auditWebhook({ client, webhookId, store }) takes an options object.');
  }
  const { client, store, keyPrefix = '', receiver, findFailed, tenant, onProgress, now = Date.now } = options;
  if (typeof client?.listDeliveries !== 'function') {
    throw optionMistake('`client` must be a client from @sms-webhooks/client: createClient({ apiKey }).');
  }
  const webhookIds = typeof options.webhookId === 'string' ? [options.webhookId] : options.webhookId;
  if (
    !Array.isArray(webhookIds) ||
    webhookIds.length === 0 ||
    webhookIds.some((id) => typeof id !== 'string' || !id.startsWith('wh_'))
  ) {
    throw optionMistake(
      `\`webhookId\` must be the webhook's wh_… id (or a list of them), got ${JSON.stringify(options.webhookId)?.slice(0, 200)}.`,
    );
  }
  if (tenant !== undefined && (typeof tenant !== 'string' || tenant === '')) {
    throw optionMistake(
      `\`tenant\` must be the tenant's name as the receiver gets it, got ${JSON.stringify(tenant)}.`,
    );
  }
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw optionMistake('`onProgress` must be a function: (read, total) => void.');
  }
  checkStore(
    store,
    'inspect',
    'ERR_SMS_OPS_NO_INSPECT',
    'the store has no inspect(key), so the audit cannot read what it holds. MemoryStore, RedisStore and PostgresStore have it; add it to your store (runDedupeStoreContract checks it).',
  );
  if (typeof keyPrefix !== 'string') throw optionMistake('`keyPrefix` must be a string.');
  if (receiver !== undefined && typeof receiver?.handledTypes !== 'function') {
    throw optionMistake('`receiver` must be the receiver (createReceiver), which has handledTypes().');
  }
  if (findFailed !== undefined && typeof findFailed !== 'function') {
    throw optionMistake('`findFailed` must be a function: (eventId) => findFailed(queue, eventId).');
  }
  if (typeof now !== 'function') throw optionMistake('`now` must be a function returning epoch ms.');
  const retainMs = positiveMs('retainMs', options.retainMs, DAY_MS);
  const keyOf = (eventId: string) =>
    keyPrefix + (tenant === undefined ? eventId : tenantKey(tenant, eventId));
  return {
    client,
    webhookIds: [...new Set(webhookIds as string[])],
    store,
    keyOf,
    receiver,
    findFailed,
    onProgress,
    now,
    retainMs,
  };
}

/** The options {@link checkOptions} returns. */
export type CheckedAuditOptions = ReturnType<typeof checkOptions>;
