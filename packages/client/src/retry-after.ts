/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; 1 s when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number {
  if (value === null || value.trim() === '') return 1000;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? 1000 : Math.max(0, date - now);
}
