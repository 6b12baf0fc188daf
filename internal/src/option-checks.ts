/**
 * The option checks every package runs at start-up (and verifyWebhook on each call), in one place so the
 * messages read the same everywhere: what the option must be, and what was given, type included (a
 * `leaseMs: "5000"` from an environment variable reads `got the string "5000"`, not `got 5000`).
 * Keep them to type tests and comparisons: verifyWebhook runs them per call.
 */

/** Every option error has this code, whichever package threw it. */
export const OPTIONS_ERROR_CODE = 'ERR_SMS_OPTIONS';

/** A configuration mistake: a TypeError whose message starts with the package that found it. */
export function optionError(owner: string, message: string, code = OPTIONS_ERROR_CODE): TypeError {
  return Object.assign(new TypeError(`${owner}: ${message}`), { code });
}

/** A value as an option error shows it: numbers as they are, anything else with its type. */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'number':
      return String(value);
    case 'string':
      return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case 'bigint':
      return `the bigint ${value}n`;
    case 'boolean':
      return `the boolean ${value}`;
    case 'function':
      return 'a function';
    case 'undefined':
      return 'undefined';
    default:
      if (value === null) return 'null';
      return Array.isArray(value) ? 'an array' : 'an object';
  }
}

export interface PositiveOption {
  /** The package whose option this is; starts the message. Default 'sms-webhooks'. */
  owner?: string;
  /** Whole numbers only (milliseconds, bytes, counts). */
  integer?: boolean;
  /** 0 is allowed too: '0 or a positive integer' (a retry count, a wait that may be none). */
  zero?: boolean;
  /** Said after the rule, e.g. 'milliseconds, such as 10000 (the default)'. */
  unit?: string;
  code?: string;
}

/**
 * A positive (finite, > 0) number, or 0 too with `zero`; the fallback when undefined. NaN is refused: see
 * verifySignature.
 */
export function positiveOption(
  name: string,
  value: unknown,
  fallback: number,
  rules?: PositiveOption,
): number {
  if (value === undefined) return fallback;
  const integer = rules?.integer === true;
  const zero = rules?.zero === true;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    (zero ? value < 0 : value <= 0) ||
    (integer && !Number.isInteger(value))
  ) {
    const unit = rules?.unit ? ` of ${rules.unit}` : '';
    const rule = `${zero ? '0 or a positive' : 'a positive'} ${integer ? 'integer' : 'number'}${unit}`;
    throw optionError(
      rules?.owner ?? 'sms-webhooks',
      `\`${name}\` must be ${rule}, got ${describeValue(value)}.`,
      rules?.code,
    );
  }
  return value;
}

/** One of a few strings; the first is the default. */
export function oneOfOption<T extends string>(
  name: string,
  value: unknown,
  allowed: readonly T[],
  owner = 'sms-webhooks',
): T {
  if (value === undefined) return allowed[0]!;
  if (!allowed.includes(value as T)) {
    const list = allowed.map((a) => `'${a}'`).join(' or ');
    throw optionError(owner, `\`${name}\` must be ${list}, got ${describeValue(value)}.`);
  }
  return value as T;
}
