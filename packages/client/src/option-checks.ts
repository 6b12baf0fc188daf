/**
 * The client's start-up option checks. The client has no dependencies, so these mirror core's
 * (`@sms-webhooks/core/store`: describeValue, positiveOption) rather than import them;
 * test/option-checks.test.ts holds the two to the same messages.
 */

const OWNER = '@sms-webhooks/client';

/** A configuration mistake, coded as core's are. */
export function optionError(message: string): TypeError {
  return Object.assign(new TypeError(`${OWNER}: ${message}`), { code: 'ERR_SMS_OPTIONS' });
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

/** A number from `min` (0 or 1) up, finite; whole when `integer`. The fallback when undefined. */
export function numberOption(
  name: string,
  value: unknown,
  fallback: number,
  rules: { min: 0 | 1; integer?: boolean; unit?: string },
): number {
  if (value === undefined) return fallback;
  const integer = rules.integer === true;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    (rules.min === 1 ? value <= 0 : value < 0) ||
    (integer && !Number.isInteger(value))
  ) {
    const unit = rules.unit ? ` of ${rules.unit}` : '';
    const kind = `${rules.min === 1 ? 'a positive' : '0 or a positive'} ${integer ? 'integer' : 'number'}`;
    throw optionError(`\`${name}\` must be ${kind}${unit}, got ${describeValue(value)}.`);
  }
  return value;
}
