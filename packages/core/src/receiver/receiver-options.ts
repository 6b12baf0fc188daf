import { oneOfOption, optionError, positiveOption } from '@sms-webhooks/internal';
import { type Clock, isClock, systemClock } from '../base/clock.js';
import type { Logger } from '../base/logger.js';
import type { AnyWebhookEvent } from '../verify/event-types.js';
import { type HeaderNames, headerNames } from '../verify/headers.js';
import {
  checkTenantOptions,
  type SecretCacheOptions,
  type SecretFunction,
  type TenantOption,
  TenantSecrets,
} from '../verify/tenant-secrets.js';
import { checkHeaderPrefix, checkSecrets, DEFAULT_TOLERANCE_SECONDS } from '../verify/verify-options.js';
import { type ConcurrencyOptions, concurrencyOptions } from './concurrency-options.js';
import { type DedupeStore, isDedupeStore, supportsOrder } from './dedupe-store.js';
import type { Dispatch } from './dispatch.js';
import type { Instrumentation } from './instrumentation.js';
import { type KeepDeliveriesOptions, type KeepPolicy, keepOption } from './kept-deliveries.js';
import { MemoryStore } from './memory-store.js';
import type { RespondMode, StoreErrorMode } from './modes.js';
import { type OrderOption, type OrderSlot, orderOption } from './order.js';
import { type RetryOption, type RetryPolicy, retryOption } from './retry.js';
import { DEFAULT_HANDLER_TIMEOUT_MS } from './run-timeouts.js';

export type { RespondMode, StoreErrorMode };

/** What {@link createReceiver} takes: the secret is required, every other option has a default. */
export interface ReceiverOptions {
  /**
   * The webhook's `whsec_…` secret. Pass several while rotating: a delivery signed with any is accepted
   * (`ctx.secretIndex` says which). Many tenants on one route: a function of `{ tenant }` that returns the
   * tenant's secret or secrets (sync or async), or `undefined`/`null` for an unknown tenant (404
   * `unknown_tenant`); see `tenant`, `secretCache` and `secretTimeoutMs`.
   */
  secret: string | readonly string[] | SecretFunction;
  /**
   * With `secret` as a function: what names the tenant, the route parameter's name (default 'tenant', for
   * `/webhooks/sms/:tenant`) or a function of the request. It is all the `secret` function gets, and what
   * its answer is cached under: put whatever chooses the secret in it (`acme:test`). Handlers get it as
   * `ctx.tenant`, and dedupe and `order` keys are kept per tenant.
   */
  tenant?: TenantOption;
  /** With `secret` as a function: the lookups kept, `{ max, ttlMs }` (default 1000 tenants for 60 s), or `false`. */
  secretCache?: SecretCacheOptions | false;
  /**
   * With `secret` as a function: how long one call of it (shared by the tenant's deliveries meanwhile) may
   * take. Past it the deliveries are 503 `secret_unavailable` with Retry-After, and a later one calls
   * again. Default 5000; it cannot be turned off.
   */
  secretTimeoutMs?: number;
  /** Seconds between the signature's timestamp and now, either way. Default 300 (the spec's value). */
  tolerance?: number;
  /** Where processed event ids are recorded. Default a new `MemoryStore` (one instance only). */
  store?: DedupeStore;
  /** How long a processed event id is remembered. Default 24 h, longer than the ~14.6 h retry schedule. */
  retainMs?: number;
  /** How long a claim lives if its process dies mid-handler; then a redelivery may run it. Default 5 min. */
  leaseMs?: number;
  /**
   * Ack before handlers run ('immediately', default) or after they succeed ('after-handlers'). Not with
   * `dispatch`, whose hand-off decides the answer.
   */
  respond?: RespondMode;
  /** When the store fails: 'reject' answers 503 so the service retries (default); 'process' runs without dedupe. */
  onStoreError?: StoreErrorMode;
  /** Default 'x-service': reads x-service-signature, -event-id, -event-type, -delivery-attempt. */
  headerPrefix?: string;
  /** Largest body accepted; adapters stop reading past it and answer 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** How long the Node adapters wait for the whole body before answering 408. Default 10 s. */
  bodyTimeoutMs?: number;
  /** Default `console`. Never given a secret or a full signature. */
  logger?: Logger;
  /** Hand verified, claimed events elsewhere (a durable queue) instead of running handlers here. */
  dispatch?: Dispatch;
  /** Reports each delivery's steps to tracing and metrics, e.g. `otelInstrumentation()` from `@sms-webhooks/otel`. */
  instrumentation?: Instrumentation;
  /** Where time comes from. Default the system clock; tests pass `VirtualClock` from `@sms-webhooks/core/testing`. */
  clock?: Clock;
  /**
   * Events out of order: `true` makes the latest status win per message (`message.sent`, `.delivered`,
   * `.failed`, keyed by `data.id`, versioned by `data.updated_at`, then sent before delivered or failed;
   * replies are never ordered); a function gives the key and version of any event. An
   * event older than the newest one completed for its object is answered 200 `stale` and runs no handler;
   * two events of one object never run at once (the later gets 409). Default off.
   */
  order?: OrderOption;
  /**
   * With `respond: 'immediately'` the service never retries an acknowledged event, so a failed run is
   * retried here: `{ attempts, backoffMs }` (default 3 attempts, waits of 1 s then 2 s, doubling from
   * `backoffMs`, or the waits as a list). `false` turns it off. The claim stays renewed meanwhile.
   */
  retry?: RetryOption;
  /**
   * How long one run of an event's handlers may take before it counts as failed (retried, then
   * `onError`): its claims are then released, so the service's retry and the message's later statuses go
   * through. Handlers get `ctx.signal`, aborted at that moment, to stop their own work. Default 2 min;
   * `false` waits for ever.
   */
  handlerTimeoutMs?: number | false;
  /**
   * At most this many deliveries run their handlers at once in this process (in 'immediately' mode, the
   * background runs after the 200). Default no limit. Not with `dispatch`, whose worker has its own.
   */
  maxConcurrency?: number;
  /**
   * With `maxConcurrency`: how many more deliveries may wait for a slot, in memory (0: none). Past it a
   * delivery is answered 503 `overloaded` with Retry-After, before its body is read when the entry can,
   * and always before any store write, so the service's retry runs it once. Default 1000.
   */
  maxQueue?: number;
  /**
   * Keep each verified delivery's raw body in the store, with its record (event id, type, attempt, when
   * it arrived, tenant), for `retainMs`: what `sms-webhooks replay` runs an event from when the audit finds
   * it unfinished or missed. Written beside the claim, before the answer; deliveries answered with an
   * error after verification are kept too. `true`, or `{ maxBytes, types }`. Default off. Bodies hold
   * phone numbers: see the README's "Kept deliveries" for what is kept where.
   */
  keepDeliveries?: boolean | KeepDeliveriesOptions;
}

export interface ResolvedOptions {
  /** Empty with `secret` as a function: then `tenants` looks them up per request. */
  secrets: readonly string[];
  tenants: TenantSecrets | undefined;
  tolerance: number;
  store: DedupeStore;
  retainMs: number;
  leaseMs: number;
  respond: RespondMode;
  onStoreError: StoreErrorMode;
  names: HeaderNames;
  maxBodyBytes: number;
  bodyTimeoutMs: number;
  logger: Logger;
  dispatch: Dispatch | undefined;
  instrumentation: Instrumentation | undefined;
  clock: Clock;
  /** The checked `order` option: an event's slot, or undefined when ordering is off. */
  order: ((event: AnyWebhookEvent) => OrderSlot | undefined) | undefined;
  retry: RetryPolicy;
  /** Undefined when off (`false`). */
  handlerTimeoutMs: number | undefined;
  /** `maxConcurrency` and `maxQueue`; undefined when there is no limit. */
  concurrency: ConcurrencyOptions | undefined;
  /** `keepDeliveries`; undefined when off or the store cannot keep. */
  keep: KeepPolicy | undefined;
}

const KNOWN_OPTIONS = new Set<string>([
  'secret',
  'tenant',
  'secretCache',
  'secretTimeoutMs',
  'tolerance',
  'store',
  'retainMs',
  'leaseMs',
  'respond',
  'onStoreError',
  'headerPrefix',
  'maxBodyBytes',
  'bodyTimeoutMs',
  'logger',
  'dispatch',
  'instrumentation',
  'clock',
  'order',
  'retry',
  'handlerTimeoutMs',
  'maxConcurrency',
  'maxQueue',
  'keepDeliveries',
] satisfies (keyof ReceiverOptions)[]);

function fail(message: string): never {
  throw optionError('sms-webhooks', message);
}

/** What to say when `store` is not a DedupeStore: a bare database client is the usual mistake. */
function storeMistake(store: unknown): string {
  const s = store as Record<string, unknown> | null;
  const has = (name: string) => typeof s?.[name] === 'function';
  if (has('get') && has('set') && (has('eval') || has('sendCommand') || has('evalsha'))) {
    return "`store` is a Redis client, not a dedupe store: wrap it, `store: new RedisStore({ client, clientType: 'ioredis' })` from @sms-webhooks/redis (clientType 'node-redis' for a node-redis client).";
  }
  if (has('query') || has('begin') || has('unsafe')) {
    return '`store` is a PostgreSQL client, not a dedupe store: wrap it, `store: new PostgresStore({ pool })` (pg) or `new PostgresStore({ sql })` (postgres.js) from @sms-webhooks/postgres.';
  }
  return '`store` must implement claim, complete and release (see the DedupeStore interface).';
}

function checkShape(options: ReceiverOptions): void {
  if (typeof options !== 'object' || options === null)
    fail('createReceiver needs an options object with a `secret`.');
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key))
      fail(`unknown option \`${key}\`. Known options: ${[...KNOWN_OPTIONS].join(', ')}.`);
  }
  if (options.store !== undefined && !isDedupeStore(options.store)) fail(storeMistake(options.store));
  if (options.dispatch !== undefined && typeof options.dispatch !== 'function') {
    fail('`dispatch` must be a function that hands an event on and resolves once it is stored.');
  }
  if (options.dispatch !== undefined && options.respond !== undefined) {
    fail(
      '`respond` does nothing with `dispatch`: the receiver answers 200 once the hand-off resolves and 503 when it fails. Remove `respond`, or `dispatch` to run handlers in this process.',
    );
  }
  if (
    typeof options.secret === 'function' &&
    (options.dispatch as { keyedByEventId?: unknown } | undefined)?.keyedByEventId === true
  ) {
    // The queue hand-offs name a job by its event id alone: two tenants' events with one id would meet.
    fail(
      '`secret` as a function (many tenants) does not work with this `dispatch` yet: the BullMQ, pg-boss and RabbitMQ hand-offs name a job by its event id alone, so two tenants delivering the same id would share one job. Run handlers in this process, give each tenant a receiver of its own with a string `secret`, or pass a dispatch of your own (it gets `claim.key`, which holds the tenant).',
    );
  }
  if (
    options.dispatch !== undefined &&
    options.order !== undefined &&
    options.order !== false &&
    (options.dispatch as { appliesOrder?: unknown }).appliesOrder !== true
  ) {
    fail(
      "`order` with `dispatch` needs a hand-off whose worker applies it: `enqueueTo` from @sms-webhooks/bullmq or @sms-webhooks/pg-boss, whose createWorker orders the jobs. This dispatch does not say it does (RabbitMQ's does not order), so order inside your worker, or drop `dispatch` to run handlers here with `order`.",
    );
  }
  if (
    options.instrumentation !== undefined &&
    typeof (options.instrumentation as Partial<Instrumentation> | null)?.startDelivery !== 'function'
  ) {
    fail(
      '`instrumentation` must have a startDelivery() method, such as otelInstrumentation() from @sms-webhooks/otel.',
    );
  }
  if (options.clock !== undefined && !isClock(options.clock)) {
    fail(
      '`clock` must have now() and setTimer() methods, such as VirtualClock from @sms-webhooks/core/testing.',
    );
  }
}

/** The service's secrets start with `whsec_`; one without it is most likely the API key or a typo. */
function warnOnUnprefixedSecret(secrets: readonly string[], logger: Logger): void {
  const odd = secrets.findIndex((s) => !s.startsWith('whsec_'));
  if (odd < 0) return;
  const where = secrets.length > 1 ? `secret[${odd}]` : '`secret`';
  logger.warn(
    `sms-webhooks: ${where} does not start with whsec_, as the service's webhook secrets do, so every delivery may fail with signature_mismatch. Use the secret the service returned when the webhook was created (not the API key).`,
  );
}

export function resolveOptions(options: ReceiverOptions): ResolvedOptions {
  checkShape(options);
  const logger = options.logger ?? console;
  if (typeof logger?.warn !== 'function' || typeof logger?.error !== 'function') {
    fail('`logger` must have warn() and error() methods (console and pino both do).');
  }
  const clock = options.clock ?? systemClock;
  const perTenant = checkTenantOptions(options);
  const secrets = perTenant === undefined ? checkSecrets(options.secret) : [];
  const prefix = checkHeaderPrefix(options.headerPrefix);
  const whole = { integer: true } as const;
  const resolved: ResolvedOptions = {
    secrets,
    tenants:
      perTenant &&
      new TenantSecrets(
        options.secret as SecretFunction,
        perTenant.tenant,
        perTenant.cache,
        perTenant.timeoutMs,
        clock,
        logger,
      ),
    tolerance: positiveOption('tolerance', options.tolerance, DEFAULT_TOLERANCE_SECONDS),
    store: options.store ?? new MemoryStore({ logger, now: clock.now.bind(clock) }),
    retainMs: positiveOption('retainMs', options.retainMs, 24 * 60 * 60 * 1000, whole),
    leaseMs: positiveOption('leaseMs', options.leaseMs, 5 * 60 * 1000, whole),
    respond: oneOfOption('respond', options.respond, ['immediately', 'after-handlers'] as const),
    onStoreError: oneOfOption('onStoreError', options.onStoreError, ['reject', 'process'] as const),
    names: headerNames(prefix),
    maxBodyBytes: positiveOption('maxBodyBytes', options.maxBodyBytes, 1024 * 1024, whole),
    bodyTimeoutMs: positiveOption('bodyTimeoutMs', options.bodyTimeoutMs, 10_000, whole),
    logger,
    dispatch: options.dispatch,
    instrumentation: options.instrumentation,
    clock,
    order: orderOption(options.order),
    retry: retryOption(options.retry),
    handlerTimeoutMs:
      options.handlerTimeoutMs === false
        ? undefined
        : positiveOption('handlerTimeoutMs', options.handlerTimeoutMs, DEFAULT_HANDLER_TIMEOUT_MS, {
            ...whole,
            unit: 'milliseconds (or false for no time-out)',
          }),
    concurrency: concurrencyOptions(options),
    keep: undefined,
  };
  resolved.keep = keepOption(options.keepDeliveries, resolved.store, logger);
  if (resolved.order !== undefined && !supportsOrder(resolved.store)) {
    fail(
      `\`order\` needs a store that keeps each object's version: MemoryStore, RedisStore or PostgresStore (this ${resolved.store.constructor?.name ?? 'store'} has no claimOrder, completeOrder, releaseOrder and renewOrder).`,
    );
  }
  warnOnUnprefixedSecret(secrets, logger);
  if (resolved.store.localKeys && globalThis.process?.env?.NODE_ENV === 'production') {
    logger.warn(
      'sms-webhooks: the dedupe store keeps its records in this process only (MemoryStore). With more than one ' +
        'instance a redelivery can reach another instance and run twice: use RedisStore from @sms-webhooks/redis.',
    );
  }
  return resolved;
}
