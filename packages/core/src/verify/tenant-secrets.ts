import { describeError } from '../base/describe-error.js';
import { firstTime } from '../base/log-once.js';
import type { Logger } from '../base/logger.js';
import { describeValue, optionError, positiveOption } from '../base/option-checks.js';
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

export interface TenantRequest extends SecretRequest {
  /** The tenant named by the request (the `tenant` option: by default the route parameter `tenant`). */
  readonly tenant: string;
}

/** What a `secret` function returns: the tenant's secret or secrets, or `undefined`/`null` for no such tenant. */
export type TenantSecretResult = string | readonly string[] | null | undefined;

/** `secret` as a function: the secrets of the request's tenant, looked up as it arrives (sync or async). */
export type SecretFunction = (request: TenantRequest) => TenantSecretResult | PromiseLike<TenantSecretResult>;

/** `tenant`: the route parameter that names the tenant, or a function of the request (a header, the path). */
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
}): { tenant: TenantOption; cache: Required<SecretCacheOptions> | undefined } | undefined {
  const { secret, tenant, secretCache } = options;
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
  return { tenant: (tenant as TenantOption | undefined) ?? 'tenant', cache: cacheOption(secretCache) };
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

/**
 * The receiver's `secret` function with its cache: which tenant a request names and that tenant's
 * secrets. Concurrent lookups of one tenant share one call. A function that throws, rejects or returns
 * something that is not a secret is `secret_unavailable` (503, so the service retries), and never cached.
 */
export class TenantSecrets {
  readonly #cache: SecretCache | undefined;
  readonly #pending = new Map<string, Promise<readonly string[] | null>>();
  #dummy: readonly string[] | undefined;

  constructor(
    readonly secretOf: SecretFunction,
    readonly tenantOption: TenantOption,
    cache: Required<SecretCacheOptions> | undefined,
    now: () => number,
    readonly logger: Logger,
  ) {
    this.#cache = cache === undefined ? undefined : new SecretCache(cache.max, cache.ttlMs, now);
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
    let secrets = this.#cache?.get(tenant);
    if (secrets === undefined) secrets = await this.#fetch(tenant, request);
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
          `sms-webhooks: the request has no route parameter \`${option}\` to name its tenant (its parameters: ${names.length > 0 ? names.join(', ') : 'none'}), so it was answered 404 unknown_tenant. Name the route's parameter :${option} (/webhooks/sms/:${option}), check that the adapter passes the route's parameters (see its README), or set the receiver's \`tenant\` option.`,
        );
      }
    } else {
      try {
        tenant = option(request);
      } catch (error) {
        throw this.#unavailable(`the \`tenant\` function threw: ${describeError(error)}`);
      }
    }
    if (typeof tenant !== 'string' || tenant === '' || tenant.length > MAX_TENANT_LENGTH) return undefined;
    return tenant;
  }

  #fetch(tenant: string, request: SecretRequest): Promise<readonly string[] | null> {
    let pending = this.#pending.get(tenant);
    if (pending === undefined) {
      pending = this.#call(tenant, request).finally(() => this.#pending.delete(tenant));
      this.#pending.set(tenant, pending);
    }
    return pending;
  }

  async #call(tenant: string, request: SecretRequest): Promise<readonly string[] | null> {
    let result: TenantSecretResult;
    try {
      result = await this.secretOf({ ...request, tenant });
    } catch (error) {
      throw this.#unavailable(
        `the \`secret\` function failed for tenant ${JSON.stringify(tenant)}: ${describeError(error)}`,
      );
    }
    let secrets: readonly string[] | null = null;
    if (result !== undefined && result !== null) {
      try {
        secrets = checkSecrets(result);
      } catch (error) {
        // The check's messages name the problem and never the secret.
        throw this.#unavailable(
          `the \`secret\` function returned no usable secret for tenant ${JSON.stringify(tenant)}: ${describeError(error)}`,
        );
      }
    }
    this.#cache?.set(tenant, secrets);
    return secrets;
  }

  #unavailable(detail: string): WebhookVerificationError {
    this.logger.error(`sms-webhooks: answering 503 secret_unavailable, ${detail}`);
    return new WebhookVerificationError(
      'secret_unavailable',
      'The webhook secret could not be looked up; retry later.',
    );
  }
}
