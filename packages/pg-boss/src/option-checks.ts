import { positiveOption } from '@sms-webhooks/internal';
import { PgBossHandOffError } from './errors.js';

const OWNER = '@sms-webhooks/pg-boss';

function fail(message: string): never {
  throw new PgBossHandOffError('ERR_SMS_PGBOSS_OPTIONS', message);
}

/** positiveOption for a whole number (0 too with `zero`), thrown as a PgBossHandOffError like every option mistake here. */
function integerOption(
  name: string,
  value: unknown,
  fallback: number,
  rules: { unit?: string; zero?: boolean },
) {
  try {
    return positiveOption(name, value, fallback, { owner: OWNER, integer: true, ...rules });
  } catch (error) {
    fail((error as Error).message.slice(OWNER.length + 2));
  }
}

/** A positive whole number, the fallback when undefined. */
export function positiveInteger(name: string, value: unknown, fallback: number, unit?: string): number {
  return integerOption(name, value, fallback, { unit });
}

/** A whole number of at least 0 (pg-boss's retryDelay: 0 retries at once). */
export function wholeNumber(name: string, value: unknown, fallback: number, unit: string): number {
  return integerOption(name, value, fallback, { unit, zero: true });
}
