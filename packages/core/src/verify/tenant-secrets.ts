import { describeValue, isPromiseLike, optionError, positiveOption } from '@sms-webhooks/internal';
import type { Clock } from '../base/clock.js';
import { describeError } from '../base/describe-error.js';
import { firstTime } from '../base/log-once.js';
import type { Logger } from '../base/logger.js';
import { platform } from '../base/platform/index.js';
import { WebhookVerificationError } from './errors.js';
import type { HeaderSource } from './headers.js';
import { SecretCache } from './secret-cache.js';
import { checkSecrets } from './verify-options.js';

/** What a `secret` function (and a `tenant` function) sees of the request: the adapter's small view. */
export interface SecretRequest {
  /** The route's parameters as the adapter got them (`/webhooks/sms/:tenant` gives `{ tenant }`; a wildcard may be a list); `{}` without. */
  readonly params: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly headers: HeaderSource;
  /** The request's path, without the query; `undefined` when the adapter was given none. */
  readonly path: string | undefined;
}

/**
 * What a `secret` function gets: the tenant alone, which is what its answer is cached and shared under.
 * Whatever else chooses the secret (a test-mode route) belongs in the name, through the `tenant` option.
 */
export interface TenantRequest {
  /** The tenant named by the request (the `tenant` option: by default the route parameter `tenant`). */
  readonly tenant: string;
}

/** What a `secret` function returns: the tenant's secret or secrets, or `undefined`/`null` for no such tenant. */
export type TenantSecretResult = string | readonly string[] | null | undefined;

/** `secret` as a function: the secrets of a tenant, looked up as its delivery arrives (sync or async). */
export type SecretFunction = (request: TenantRequest) => TenantSecretResult | PromiseLike<TenantSecretResult>;

/**
 * `tenant`: the route parameter that names the tenant, or a function of the request (a header, the path,
 * several parameters: `acme:test`). The function answers at once (no promise), so it cannot hang.
 */
export type TenantOption = string | ((request: SecretRequest) => string | null | undefined);

/** `secretCache`: how many tenants' secrets are kept, and how long. */
export interface SecretCacheOptions {
  /** Tenants kept at most; the least recently used goes first. Default 1000. */
  max?: number;
  /** How long a lookup is kept, known tenant or unknown, in milliseconds. Default 60000. */
  ttlMs?: number;
}

/** Where the request went, as the receiver got it from its adapter (besides its headers). */
export interface RequestPlace {
  readonly params?: Readonly<Record<string, string | readonly string[] | undefined>> | undefined;
  /** The request target or URL as the framework has it (`/webhooks/sms/acme?x=1`, or absolute). */
  readonly url?: string | undefined;
}

/** A tenant name longer than this is unknown without a lookup (it is request data, kept in the cache). */
export const MAX_TENANT_LENGTH = 256;
/** How long a `secret` call may take by default before its delivery is 503 `secret_unavailable`. */
export const DEFAULT_SECRET_TIMEOUT_MS = 5000;
/** How long a failed lookup is remembered per tenant: its deliveries are 503 meanwhile, without a call. */
export const FAILED_LOOKUP_MS = 2000;
/** How much of a tenant's name, and of a lookup's error, a log line shows: both may be a client's text. */
const LOGGED_TENANT_CHARS = 64;
const LOGGED_ERROR_CHARS = 300;
const NO_PARAMS: Readonly<Record<string, string | readonly string[] | undefined>> = Object.freeze({});

function fail(message: string): never {
  throw optionError('sms-webhooks', message);
}

/** The path of a request target or an absolute URL, without its query or fragment. */
export function pathOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  let path = url;
  if (!path.startsWith('/')) {
    const scheme = path.indexOf('://');
    if (scheme < 0) return undefined;
    const slash = path.indexOf('/', scheme + 3);
    path = slash < 0 ? '/' : path.slice(slash);
  }
  const end = path.search(/[?#]/);
  return end < 0 ? path : path.slice(0, end);
}

/**
 * A store key of `id` kept apart per tenant: two tenants may deliver the same event id (or update objects
 * with the same key), and each must run. The tenant is URI-encoded, so it has no `/` and the first `/`
 * ends it: `acme/evt_1`.
 */
export function tenantKey(tenant: string, id: string): string {
  return `${encodeURIComponent(tenant)}/${id}`;
}

/** `secret` as the receiver checks it at start-up: a function, or the secrets (see checkSecrets). */
export function isSecretFunction(secret: unknown): secret is SecretFunction {
  return typeof secret === 'function';
}

/** The tenant options, checked at start-up; undefined when `secret` is not a function (and they are unset). */
export function checkTenantOptions(options: {
  secret?: unknown;
  tenant?: unknown;
  secretCache?: unknown;
  secretTimeoutMs?: unknown;
}): TenantSettings | undefined {
  const { secret, tenant, secretCache, secretTimeoutMs } = options;
  if (!isSecretFunction(secret)) {
    // An object of secrets by tenant is the likely mistake here; other values get checkSecrets' message,
    // the one verifyWebhook gives too.
    if (typeof secret === 'object' && secret !== null && !Array.isArray(secret)) {
      fail(
        `\`secret\` must be the webhook secret (whsec_…) from the service, an array of them while rotating, or a function of the request that returns its tenant's secret (many tenants on one route); got ${describeValue(secret)}.`,
      );
    }
    for (const [name, value] of [
      ['tenant', tenant],
      ['secretCache', secretCache],
      ['secretTimeoutMs', secretTimeoutMs],
    ] as const) {
      if (value !== undefined) {
        fail(
          `\`${name}\` works with \`secret\` as a function of the request (many tenants on one route), and \`secret\` is ${describeValue(secret)}. Remove \`${name}\`, or pass \`secret: ({ tenant }) => secretsOf(tenant)\`.`,
        );
      }
    }
    return undefined;
  }
  if (tenant !== undefined && typeof tenant !== 'function' && (typeof tenant !== 'string' || tenant === '')) {
    fail(
      `\`tenant\` must be the name of the route parameter that names the tenant (such as 'tenant', the default, for /webhooks/sms/:tenant) or a function of the request that returns it, got ${describeValue(tenant)}.`,
    );
  }
  return {
    tenant: (tenant as TenantOption | undefined) ?? 'tenant',
    cache: cacheOption(secretCache),
    timeoutMs: positiveOption('secretTimeoutMs', secretTimeoutMs, DEFAULT_SECRET_TIMEOUT_MS, {
      integer: true,
      unit: `milliseconds, such as ${DEFAULT_SECRET_TIMEOUT_MS} (the default); it cannot be turned off, since a lookup that never answers would hold every delivery of its tenant`,
    }),
  };
}

/** The tenant options as checked at start-up. */
export interface TenantSettings {
  tenant: TenantOption;
  cache: Required<SecretCacheOptions> | undefined;
  timeoutMs: number;
}

function cacheOption(value: unknown): Required<SecretCacheOptions> | undefined {
  if (value === false) return undefined;
  if (value === undefined) return { max: 1000, ttlMs: 60_000 };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(
      `\`secretCache\` must be { max, ttlMs } (default { max: 1000, ttlMs: 60000 }) or false to look the secret up on every delivery, got ${describeValue(value)}.`,
    );
  }
  for (const key of Object.keys(value)) {
    if (key !== 'max' && key !== 'ttlMs') {
      fail(`\`secretCache\` has an unknown option \`${key}\`; it takes \`max\` and \`ttlMs\`.`);
    }
  }
  const { max, ttlMs } = value as SecretCacheOptions;
  const whole = { integer: true } as const;
  return {
    max: positiveOption('secretCache.max', max, 1000, {
      ...whole,
      unit: 'tenants, such as 1000 (the default)',
    }),
    ttlMs: positiveOption('secretCache.ttlMs', ttlMs, 60_000, {
      ...whole,
      unit: 'milliseconds, such as 60000 (the default); `secretCache: false` turns the cache off',
    }),
  };
}

/** A lookup's outcome: the tenant's secrets, or none (an unknown tenant). */
export type TenantLookup =
  | { readonly tenant: string; readonly secrets: readonly string[] }
  | { readonly tenant: string | undefined; readonly secrets: undefined };

/** Request text as a log line shows it: at most `max` characters, control characters escaped. */
function printable(text: string, max: number): string {
  return escapeControls(text.length > max ? `${text.slice(0, max)}…` : text);
}

/** `\uXXXX` for C0 and C1 controls, DEL, line separators, bidi overrides and lone surrogates. */
function escapeControls(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to escape.
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A tenant's name in a log line: cut to LOGGED_TENANT_CHARS, in JSON quotes. */
function quoted(tenant: string): string {
  const cut = tenant.length > LOGGED_TENANT_CHARS ? `${tenant.slice(0, LOGGED_TENANT_CHARS)}…` : tenant;
  return escapeControls(JSON.stringify(cut));
}

const MOVED = ['params', 'headers', 'path'] as const;

/**
 * What the `secret` function gets: `{ tenant }`. Reading the request's other parts (which it once got)
 * throws, saying where they went, so an old function fails loudly (503) instead of being cached wrongly.
 */
function lookupRequest(tenant: string): TenantRequest {
  const request = { tenant };
  for (const name of MOVED) {
    Object.defineProperty(request, name, {
      enumerable: false,
      get() {
        throw new TypeError(
          `sms-webhooks: the \`secret\` function gets only { tenant }, the key its answer is cached under, so \`${name}\` is not passed; name what chooses the secret in \`tenant\`, e.g. tenant: ({ params }) => \`\${params.tenant}:\${params.mode}\``,
        );
      },
    });
  }
  return Object.freeze(request);
}

/**
 * The receiver's `secret` function with its cache: which tenant a request names and that tenant's
 * secrets. Concurrent lookups of one tenant share one call, held to `timeoutMs`. A function that throws,
 * rejects, answers late or returns something that is not a secret is `secret_unavailable` (503, so the
 * service retries), remembered for FAILED_LOOKUP_MS so that repeating a name costs one call. The function
 * gets the tenant alone, so what it answers depends on nothing the cache does not key on.
 */
export class TenantSecrets {
  /** Known tenants' secrets, and unknown tenants apart: made-up names never push a known tenant out. */
  readonly #known: SecretCache<readonly string[]> | undefined;
  readonly #unknown: SecretCache<null> | undefined;
  readonly #failed: SecretCache<string>;
  readonly #pending = new Map<string, Promise<readonly string[] | null>>();
  #dummy: readonly string[] | undefined;

  constructor(
    readonly secretOf: SecretFunction,
    readonly tenantOption: TenantOption,
    cache: Required<SecretCacheOptions> | undefined,
    readonly timeoutMs: number,
    readonly clock: Clock,
    readonly logger: Logger,
  ) {
    const now = () => clock.now();
    this.#known = cache && new SecretCache(cache.max, cache.ttlMs, now);
    this.#unknown = cache && new SecretCache(cache.max, cache.ttlMs, now);
    this.#failed = new SecretCache(cache?.max ?? 1000, FAILED_LOOKUP_MS, now);
  }

  /**
   * One secret of a tenant's shape (`whsec_` and 48 characters, under HMAC's 64-byte block as real ones
   * are), that nobody knows: an unknown tenant is checked against it, so it costs a wrong signature's time.
   * Drawn on first use (Workers refuse random values at load).
   */
  get dummy(): readonly string[] {
    this.#dummy ??= [`whsec_${platform.randomHex(24)}`];
    return this.#dummy;
  }

  async lookup(headers: HeaderSource, place: RequestPlace): Promise<TenantLookup> {
    const request: SecretRequest = { params: place.params ?? NO_PARAMS, headers, path: pathOf(place.url) };
    const tenant = this.#tenantOf(request);
    if (tenant === undefined) return { tenant, secrets: undefined };
    let secrets = this.#known?.get(tenant) ?? this.#unknown?.get(tenant);
    if (secrets === undefined) {
      const failed = this.#failed.get(tenant);
      if (failed !== undefined) {
        throw unavailable(`${failed} (less than ${FAILED_LOOKUP_MS / 1000} s ago; not asked again yet)`);
      }
      secrets = await this.#fetch(tenant);
    }
    return secrets === null ? { tenant, secrets: undefined } : { tenant, secrets };
  }

  #tenantOf(request: SecretRequest): string | undefined {
    const option = this.tenantOption;
    let tenant: unknown;
    if (typeof option === 'string') {
      tenant = request.params[option];
      if (tenant === undefined && firstTime(this, 'tenant parameter hint')) {
        const names = Object.keys(request.params);
        this.logger.error(
          `sms-webhooks: the request has no route parameter \`${option}\` to name its tenant (its parameters: ${names.length > 0 ? printable(names.join(', '), 200) : 'none'}), so it was answered 404 unknown_tenant. Name the route's parameter :${option} (/webhooks/sms/:${option}), check that the adapter passes the route's parameters (see its README), or set the receiver's \`tenant\` option.`,
        );
      }
    } else {
      try {
        tenant = option(request);
      } catch (error) {
        throw unavailable(
          `the \`tenant\` function threw: ${printable(describeError(error), LOGGED_ERROR_CHARS)}`,
        );
      }
      if (isPromiseLike(tenant)) {
        tenant.then(undefined, () => {});
        throw unavailable(
          'the `tenant` function returned a promise: it must return the name at once (a function of params, headers or path); look things up in `secret`, which is held to `secretTimeoutMs`',
        );
      }
    }
    if (typeof tenant !== 'string' || tenant === '' || tenant.length > MAX_TENANT_LENGTH) return undefined;
    return tenant;
  }

  /** The tenant's call in progress, or a new one; dropped from the map once it settles or times out. */
  #fetch(tenant: string): Promise<readonly string[] | null> {
    let pending = this.#pending.get(tenant);
    if (pending === undefined) {
      const call = this.#call(tenant);
      pending = call;
      const drop = () => {
        if (this.#pending.get(tenant) === call) this.#pending.delete(tenant);
      };
      call.then(drop, drop);
      this.#pending.set(tenant, call);
    }
    return pending;
  }

  #call(tenant: string): Promise<readonly string[] | null> {
    const answer = (async () => this.secretOf(lookupRequest(tenant)))();
    return new Promise((resolve, reject) => {
      let over = false;
      const cancel = this.clock.setTimer(() => {
        over = true;
        reject(
          this.#failure(
            tenant,
            `the \`secret\` function did not answer for tenant ${quoted(tenant)} within ${this.timeoutMs} ms (secretTimeoutMs)`,
          ),
        );
      }, this.timeoutMs);
      // A late answer of a call that timed out is dropped: a newer call may have answered since.
      answer.then(
        (result) => {
          if (over) return;
          cancel();
          try {
            resolve(this.#accept(tenant, result));
          } catch (error) {
            reject(error);
          }
        },
        (error: unknown) => {
          if (over) return;
          cancel();
          reject(
            this.#failure(
              tenant,
              `the \`secret\` function failed for tenant ${quoted(tenant)}: ${printable(describeError(error), LOGGED_ERROR_CHARS)}`,
            ),
          );
        },
      );
    });
  }

  #accept(tenant: string, result: TenantSecretResult): readonly string[] | null {
    if (result === undefined || result === null) {
      this.#unknown?.set(tenant, null);
      return null;
    }
    let secrets: readonly string[];
    try {
      secrets = checkSecrets(result);
    } catch (error) {
      // The check's messages name the problem and never the secret.
      throw this.#failure(
        tenant,
        `the \`secret\` function returned no usable secret for tenant ${quoted(tenant)}: ${describeError(error)}`,
      );
    }
    this.#known?.set(tenant, secrets);
    return secrets;
  }

  #failure(tenant: string, detail: string): WebhookVerificationError {
    this.#failed.set(tenant, detail);
    return unavailable(detail);
  }
}

/** 503 `secret_unavailable`; `detail` goes to the sampled refusal log (bounded and escaped before). */
function unavailable(detail: string): WebhookVerificationError {
  return new WebhookVerificationError(
    'secret_unavailable',
    'The webhook secret could not be looked up; retry later.',
    detail,
  );
}
