import { describeValue, positiveOption } from '@sms-webhooks/internal';
import { PgBossHandOffError } from './errors.js';

const OWNER = '@sms-webhooks/pg-boss';

function fail(message: string): never {
  throw new PgBossHandOffError('ERR_SMS_PGBOSS_OPTIONS', message);
}

/** core's positiveOption for a whole number, thrown as a PgBossHandOffError like every option mistake here. */
export function positiveInteger(name: string, value: unknown, fallback: number, unit?: string): number {
  try {
    return positiveOption(name, value, fallback, { owner: OWNER, integer: true, unit });
  } catch (error) {
    fail((error as Error).message.slice(OWNER.length + 2));
  }
}

/** A whole number of at least 0 (pg-boss's retryDelay: 0 retries at once). */
export function wholeNumber(name: string, value: unknown, fallback: number, unit: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    fail(`\`${name}\` must be 0 or a positive integer of ${unit}, got ${describeValue(value)}.`);
  }
  return value;
}
