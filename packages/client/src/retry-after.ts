/**
 * `Retry-After` as milliseconds: whole delta-seconds, or an HTTP date; 1 s when absent or unreadable.
 * Only text with a letter is read as a date: `Date.parse('1.5')` and `Date.parse('-1')` are past dates,
 * which would retry at once.
 */
export function retryAfterMs(value: string | null, now: number): number {
  const text = value?.trim() ?? '';
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? 1000 : Math.max(0, date - now);
}
