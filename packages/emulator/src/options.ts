import { optionError, positiveOption } from '@sms-webhooks/internal';
import { type EmulatorClock, systemClock } from './clock.js';

export type { EmulatorClock };
/** The emulator's fixed-window rate limit; past it a request gets a 429 with `Retry-After`. */
export interface RateLimitOptions {
  /** Requests allowed per window, per credential (API key on the token route, workspace elsewhere). */
  limit: number;
  /** The window's length in ms. */
  windowMs: number;
}

/** Options of `createEmulator`: every one has a default, so `createEmulator()` runs as is. */
export interface EmulatorOptions {
  /** Default 0: a free port. */
  port?: number;
  /**
   * Default `127.0.0.1`. While it is a loopback address, requests must name a loopback `Host` (a web page
   * cannot reach the emulator through DNS rebinding); another address accepts any `Host`.
   */
  host?: string;
  /**
   * API keys accepted by the token exchange. Default: any key matching `sk_test_…` or `sk_live_…`
   * (letters, digits, `_`, at least one character after the prefix).
   */
  apiKeys?: readonly string[];
  /** Accept `http://` webhook URLs on loopback hosts (localhost, 127.0.0.0/8, ::1). Default false. */
  allowInsecureLoopback?: boolean;
  /** Multiplies every retry wait: 1/1000 turns 1 min into 60 ms. Default 1. */
  timeScale?: number;
  /** Per-request time-out of a delivery, in ms (not scaled). Default 10 000. */
  deliveryTimeoutMs?: number;
  /** Default 100 requests per second per credential; `false` turns rate limiting off. */
  rateLimit?: RateLimitOptions | false;
  /** Epoch milliseconds; tests move it forward to expire tokens. Default `Date.now`. Use `clock` for more. */
  now?: () => number;
  /**
   * The clock of token expiry, rate-limit windows, record times and the retry schedule. With a
   * `VirtualClock` (`@sms-webhooks/core/testing`) a test runs the whole 1 min … 12 h schedule in
   * milliseconds: `await clock.advance('30m')`. Default the real clock. Not together with `now`.
   */
  clock?: EmulatorClock;
  /** Delivery records kept per webhook (newest first in the list). Default 100. */
  maxDeliveriesPerWebhook?: number;
  /** Called after every delivery attempt, e.g. to log it. */
  onAttempt?: (attempt: AttemptReport) => void;
  /**
   * Give every webhook this `whsec_…` secret instead of a random one, so an app keeps verifying across
   * emulator restarts. Default a new random secret per webhook, as the service does.
   */
  webhookSecret?: string;
  /**
   * Only webhooks created with one of these API keys get `webhookSecret`; others get a random secret of
   * their own, as on the service. Default: every key. `sms-webhooks listen` passes its private key here,
   * so another local process that asks for a webhook never learns the secret the app trusts.
   */
  webhookSecretApiKeys?: readonly string[];
}

/** One delivery attempt, as `onAttempt` receives it once the attempt has its outcome. */
export interface AttemptReport {
  /** The webhook attempted. */
  webhookId: string;
  /** Its URL. */
  url: string;
  /** The event's id. */
  eventId: string;
  /** The event's type. */
  eventType: string;
  /** 1 for the first attempt, up to {@link MAX_ATTEMPTS}. */
  attempt: number;
  /** HTTP status the receiver answered with; null when there was no response. */
  statusCode: number | null;
  /** Why the attempt failed (`HTTP 500`, a time-out, a refused connection), or null when it delivered. */
  error: string | null;
  /** True when the receiver answered 2xx. */
  delivered: boolean;
  /** The first 200 characters of the receiver's answer ('' when there was none). */
  responseBody: string;
  /** The request's headers as sent (signature included: it is no secret, and fresh for each attempt). */
  requestHeaders: Record<string, string>;
  /** The request body, the same bytes on every attempt of an event. */
  requestBody: string;
  /** Epoch ms of the next attempt, or null when none is scheduled. */
  nextAttemptAt: number | null;
  /** Epoch ms (the emulator's clock) when the attempt started. */
  startedAt: number;
  /** How long the receiver took to answer (or the attempt took to fail), in ms. */
  durationMs: number;
}

/** The spec's waits between attempts: 1 min, 5 min, 30 min, 2 h, 12 h (6 attempts in total). */
export const RETRY_WAITS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 43_200_000] as const;
/** Attempts per delivery, the first included: 6. */
export const MAX_ATTEMPTS = RETRY_WAITS_MS.length + 1;
/** The spec's token lifetime: 48 hours, in seconds. */
export const TOKEN_TTL_SECONDS = 172_800;

export interface ResolvedEmulatorOptions {
  port: number;
  host: string;
  apiKeys: ReadonlySet<string> | undefined;
  allowInsecureLoopback: boolean;
  timeScale: number;
  deliveryTimeoutMs: number;
  rateLimit: RateLimitOptions | false;
  now: () => number;
  clock: EmulatorClock;
  maxDeliveriesPerWebhook: number;
  onAttempt: ((attempt: AttemptReport) => void) | undefined;
  webhookSecret: string | undefined;
  webhookSecretApiKeys: readonly string[] | undefined;
}

const OWNER = { owner: '@sms-webhooks/emulator' } as const;

/** positiveOption takes undefined as "the default"; inside a given `rateLimit` there is none. */
function required(name: string, value: unknown): number {
  if (value === undefined)
    throw optionError(OWNER.owner, `\`${name}\` must be a positive number, got undefined.`);
  return positiveOption(name, value, 0, OWNER);
}

export function resolveOptions(options: EmulatorOptions = {}): ResolvedEmulatorOptions {
  const rateLimit = options.rateLimit ?? { limit: 100, windowMs: 1000 };
  if (rateLimit) {
    required('rateLimit.limit', rateLimit.limit);
    required('rateLimit.windowMs', rateLimit.windowMs);
  }
  return {
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    apiKeys: options.apiKeys ? new Set(options.apiKeys) : undefined,
    allowInsecureLoopback: options.allowInsecureLoopback ?? false,
    timeScale: positiveOption('timeScale', options.timeScale, 1, OWNER),
    deliveryTimeoutMs: positiveOption('deliveryTimeoutMs', options.deliveryTimeoutMs, 10_000, {
      ...OWNER,
      unit: 'ms',
    }),
    rateLimit,
    ...clockOf(options),
    maxDeliveriesPerWebhook: positiveOption(
      'maxDeliveriesPerWebhook',
      options.maxDeliveriesPerWebhook,
      100,
      OWNER,
    ),
    onAttempt: options.onAttempt,
    webhookSecret: checkWebhookSecret(options.webhookSecret),
    webhookSecretApiKeys: checkApiKeys(options.webhookSecretApiKeys),
  };
}

function checkWebhookSecret(secret: unknown): string | undefined {
  if (secret === undefined) return undefined;
  if (typeof secret !== 'string' || !/^whsec_\S+$/.test(secret)) {
    throw optionError(
      OWNER.owner,
      'webhookSecret must be a whsec_… string without whitespace (a stray newline from a .env file?).',
    );
  }
  return secret;
}

function checkApiKeys(keys: unknown): readonly string[] | undefined {
  if (keys === undefined) return undefined;
  if (!Array.isArray(keys) || keys.length === 0 || keys.some((k) => typeof k !== 'string' || k === '')) {
    throw optionError(
      OWNER.owner,
      'webhookSecretApiKeys must be a non-empty array of API keys (sk_test_…), or left out for every key.',
    );
  }
  return [...keys];
}

function clockOf(options: EmulatorOptions): { now: () => number; clock: EmulatorClock } {
  const { clock, now } = options;
  if (clock === undefined) {
    if (now !== undefined && typeof now !== 'function') {
      throw optionError(OWNER.owner, 'now must be a function returning epoch milliseconds.');
    }
    // `now` alone moves token expiry and record times; deliveries are still signed at the real time.
    return { now: now ?? Date.now, clock: systemClock };
  }
  if (typeof clock?.now !== 'function' || typeof clock.setTimer !== 'function') {
    throw optionError(
      OWNER.owner,
      "clock must have now() and setTimer(fn, ms), like core's systemClock or VirtualClock from @sms-webhooks/core/testing.",
    );
  }
  if (now !== undefined) {
    throw optionError(OWNER.owner, 'give clock or now, not both: the clock has its own now().');
  }
  return { now: () => clock.now(), clock };
}
