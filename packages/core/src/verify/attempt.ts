/** The service numbers its attempts 1 to 6 (spec: retries). */
export const MAX_ATTEMPT = 6;

/**
 * The delivery-attempt header as a number from 1 to 6, `undefined` when absent, and `null` when present
 * but not one of those (the header is not signed, so anyone replaying a body can set it).
 */
export function parseAttempt(value: string | readonly string[] | undefined): number | undefined | null {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : value.length === 1 ? value[0]! : '';
  if (text.length !== 1) return null;
  const n = text.charCodeAt(0) - 48;
  return n >= 1 && n <= MAX_ATTEMPT ? n : null;
}
