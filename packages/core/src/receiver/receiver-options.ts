import { type DedupeStore, isDedupeStore } from './dedupe-store.js';
import type { Dispatch } from './dispatch.js';
import { DEFAULT_HEADER_PREFIX, type HeaderNames, headerNames } from '../verify/headers.js';
import { HmacKey } from '../verify/hmac-key.js';
import { type Instrumentation, isInstrumentation } from './instrumentation.js';
import type { Logger } from '../verify/logger.js';
import { MemoryStore } from './memory-store.js';

/** Here rather than in verify-signature.ts so that file can import the checks below without a cycle. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type RespondMode = 'immediately' | 'after-handlers';
export type StoreErrorMode = 'reject' | 'process';

export interface ReceiverOptions {
  /** The webhook's `whsec_…` secret. Pass several while rotating: a delivery signed with any is accepted. */
  secret: string | readonly string[];
  /** Seconds between the signature's timestamp and now, either way. Default 300 (the spec's value). */
  tolerance?: number;
  /** Where processed event ids are recorded. Default a new `MemoryStore` (one instance only). */
  store?: DedupeStore;
  /** How long a processed event id is remembered. Default 24 h, longer than the ~14.6 h retry schedule. */
  retainMs?: number;
  /** How long a claim lives if its process dies mid-handler; then a redelivery may run it. Default 5 min. */
  leaseMs?: number;
  /** Ack before handlers run ('immediately', default) or after they succeed ('after-handlers'). */
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
}

export interface ResolvedOptions {
  keys: HmacKey[];
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
}

const KNOWN_OPTIONS = new Set([
  'secret',
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
]);

function fail(message: string): never {
  throw new TypeError(`sms-webhooks: ${message}`);
}

/**
 * The checks below are shared with verifyWebhook/verifySignature, which run them on every call: keep
 * them to type tests and comparisons (no allocation beyond the key list, no regex on the hot path).
 */
export function positive(name: string, value: unknown, fallback: number, integer: boolean): number {
  if (value === undefined) return fallback;
  // NaN must be refused: `Math.abs(now - t) > NaN` is false, so a NaN tolerance would accept any timestamp.
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value <= 0 ||
    (integer && !Number.isInteger(value))
  ) {
    fail(`\`${name}\` must be a positive ${integer ? 'integer' : 'number'}, got ${String(value)}.`);
  }
  return value;
}

function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  if (value === undefined) return allowed[0]!;
  if (!allowed.includes(value as T)) {
    fail(`\`${name}\` must be ${allowed.map((a) => `'${a}'`).join(' or ')}, got ${JSON.stringify(value)}.`);
  }
  return value as T;
}

/** The secrets as a non-empty list of trimmed, non-empty strings, or a TypeError saying what to fix. */
export function checkSecrets(secret: unknown): readonly string[] {
  // The common case, one plain secret, costs two comparisons (trim returns the same string when clean).
  if (typeof secret === 'string' && secret !== '' && secret.trim() === secret) return [secret];
  const list = typeof secret === 'string' ? [secret] : secret;
  if (!Array.isArray(list) || list.length === 0) {
    fail(
      '`secret` is required: pass the webhook secret (whsec_…) from the service, or an array of them while rotating.',
    );
  }
  for (let i = 0; i < list.length; i++) {
    const s: unknown = list[i];
    const where = list.length > 1 ? `secret[${i}]` : 'secret';
    if (typeof s !== 'string') {
      fail(`\`${where}\` must be a string (whsec_…), got ${s === null ? 'null' : typeof s}.`);
    }
    if (s === '') {
      fail(`\`${where}\` is empty. Is the environment variable holding the webhook secret set?`);
    }
    if (s.trim() !== s) {
      fail(`\`${where}\` has leading or trailing whitespace (a stray newline from a .env file?). Trim it.`);
    }
  }
  return list as readonly string[];
}

export function checkHeaderPrefix(value: unknown): string {
  if (value === undefined) return DEFAULT_HEADER_PREFIX;
  if (typeof value !== 'string' || !/^[A-Za-z0-9-]+$/.test(value)) {
    fail(`\`headerPrefix\` must be a header-name prefix such as 'x-service', got ${JSON.stringify(value)}.`);
  }
  return value;
}

export function resolveOptions(options: ReceiverOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null)
    fail('createReceiver needs an options object with a `secret`.');
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key))
      fail(`unknown option \`${key}\`. Known options: ${[...KNOWN_OPTIONS].join(', ')}.`);
  }
  if (options.store !== undefined && !isDedupeStore(options.store)) {
    fail('`store` must implement claim, complete and release (see the DedupeStore interface).');
  }
  const prefix = checkHeaderPrefix(options.headerPrefix);
  const logger = options.logger ?? console;
  if (typeof logger?.warn !== 'function' || typeof logger?.error !== 'function') {
    fail('`logger` must have warn() and error() methods (console and pino both do).');
  }
  if (options.dispatch !== undefined && typeof options.dispatch !== 'function') {
    fail('`dispatch` must be a function that hands an event on and resolves once it is stored.');
  }
  if (options.instrumentation !== undefined && !isInstrumentation(options.instrumentation)) {
    fail(
      '`instrumentation` must have a startDelivery() method, such as otelInstrumentation() from @sms-webhooks/otel.',
    );
  }
  return {
    keys: checkSecrets(options.secret).map((s) => new HmacKey(s)),
    tolerance: positive('tolerance', options.tolerance, DEFAULT_TOLERANCE_SECONDS, false),
    store: options.store ?? new MemoryStore({ logger }),
    retainMs: positive('retainMs', options.retainMs, 24 * 60 * 60 * 1000, true),
    leaseMs: positive('leaseMs', options.leaseMs, 5 * 60 * 1000, true),
    respond: oneOf('respond', options.respond, ['immediately', 'after-handlers'] as const),
    onStoreError: oneOf('onStoreError', options.onStoreError, ['reject', 'process'] as const),
    names: headerNames(prefix),
    maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes, 1024 * 1024, true),
    bodyTimeoutMs: positive('bodyTimeoutMs', options.bodyTimeoutMs, 10_000, true),
    logger,
    dispatch: options.dispatch,
    instrumentation: options.instrumentation,
  };
}
