import { optionError, positiveOption } from '@sms-webhooks/internal';
import { describeError } from '../base/describe-error.js';
import type { Logger } from '../base/logger.js';
import { EVENT_TYPES, type EventType } from '../verify/event-types.js';
import { rawBodyByteLength } from '../verify/parse-event.js';
import type { DedupeStore, KeptDelivery } from './dedupe-store.js';
import type { Routed } from './delivery.js';
import type { SampledLog } from './sampled-log.js';

/** `keepDeliveries` as an object: which bodies are kept. `true` takes the defaults. */
export interface KeepDeliveriesOptions {
  /** Bodies over this many bytes are not kept (a record without the body says so). Default 65536. */
  maxBytes?: number;
  /** Only deliveries of these types are kept (privacy: leave out `message.replied`, say). Default all. */
  types?: readonly EventType[];
}

export interface KeepPolicy {
  readonly maxBytes: number;
  readonly types: ReadonlySet<string> | undefined;
}

export const DEFAULT_KEEP_MAX_BYTES = 64 * 1024;

function fail(message: string): never {
  throw optionError('sms-webhooks', message);
}

/** The checked option; undefined when off, or when the store cannot keep (said once, at start-up). */
export function keepOption(value: unknown, store: DedupeStore, logger: Logger): KeepPolicy | undefined {
  if (value === undefined || value === false) return undefined;
  if (value !== true && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    fail(
      `\`keepDeliveries\` must be true, false or { maxBytes, types }, got ${JSON.stringify(value)?.slice(0, 80)}.`,
    );
  }
  const o = (value === true ? {} : value) as KeepDeliveriesOptions;
  for (const key of Object.keys(o)) {
    if (key !== 'maxBytes' && key !== 'types') {
      fail(`\`keepDeliveries\` has an unknown option \`${key}\`; it takes \`maxBytes\` and \`types\`.`);
    }
  }
  const maxBytes = positiveOption('keepDeliveries.maxBytes', o.maxBytes, DEFAULT_KEEP_MAX_BYTES, {
    integer: true,
    unit: 'bytes, such as 65536 (the default)',
  });
  let types: Set<string> | undefined;
  if (o.types !== undefined) {
    if (!Array.isArray(o.types)) fail('`keepDeliveries.types` must be a list of event types.');
    for (const t of o.types) {
      if (!(EVENT_TYPES as readonly unknown[]).includes(t)) {
        fail(
          `\`keepDeliveries.types\` has an unknown event type ${JSON.stringify(t)}: use ${EVENT_TYPES.join(', ')}.`,
        );
      }
    }
    types = new Set(o.types);
  }
  if (typeof store.keepDelivery !== 'function' || typeof store.keptDelivery !== 'function') {
    logger.warn(
      `sms-webhooks: \`keepDeliveries\` is on, but this store (${store.constructor?.name || 'custom'}) has no keepDelivery() and keptDelivery(), so no delivery is kept and \`replay\` cannot recover an event. MemoryStore, RedisStore and PostgresStore keep them.`,
    );
    return undefined;
  }
  return { maxBytes, types };
}

/**
 * Writes each verified delivery's body to the store (`keepDeliveries`), beside its claim. Never fails
 * the delivery: a body that cannot be kept only costs a later replay, and is logged (sampled) and counted.
 */
export class DeliveryKeeper {
  constructor(
    readonly policy: KeepPolicy,
    readonly store: DedupeStore,
    readonly retainMs: number,
    readonly now: () => number,
    readonly sampled: SampledLog,
  ) {}

  keep(
    d: Routed,
    rawBody: string | Uint8Array,
    attempt: number | null | undefined,
  ): Promise<void> | undefined {
    const { event } = d;
    if (this.policy.types !== undefined && !this.policy.types.has(event.type)) return undefined;
    const bytes = rawBodyByteLength(rawBody);
    const tooLarge = bytes > this.policy.maxBytes;
    if (tooLarge) {
      this.sampled.warn('deliveries too large to keep', () => {
        return `${event.id} (${bytes} bytes) is over keepDeliveries.maxBytes (${this.policy.maxBytes}): only its record is kept, so replay cannot run it. Raise maxBytes to keep such bodies.`;
      });
    }
    const kept: KeptDelivery = {
      eventId: event.id,
      eventType: event.type,
      attempt: attempt ?? undefined,
      receivedAt: this.now(),
      tenant: d.tenant,
      bytes,
      body: tooLarge ? undefined : typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody),
    };
    return this.store.keepDelivery!(d.key, kept, this.retainMs).catch((error: unknown) => {
      this.sampled.warn(
        'deliveries not kept',
        () => `could not keep ${event.id} for a replay: ${describeError(error)}`,
      );
    });
  }
}
