/**
 * The service's retry rule (spec, "Retry"): at most 6 attempts, waiting 1 min, 5 min, 30 min, 2 h, 12 h
 * between them. The tests keep that shape and those ratios, with one spec minute = MINUTE_MS.
 */
export const MAX_ATTEMPTS = 6;

const SPEC_WAITS_MIN = [1, 5, 30, 120, 720];

/** 50 ms a minute: 50 ms, 250 ms, 1.5 s, 6 s, 36 s. Long enough for a 1.5–3 s Redis outage to end
 * before attempt 4 or 5, short enough that a test needing the 6th attempt still ends in a minute. */
export const MINUTE_MS = 50;

/** Wait before attempt n + 2 (index 0 is the wait after attempt 1). */
export const RETRY_WAITS_MS = SPEC_WAITS_MIN.map((minutes) => minutes * MINUTE_MS);

/** Time from the start of attempt 1 to the start of attempt n (ignoring request time and jitter). */
export function sinceFirstAttempt(n: number): number {
  return RETRY_WAITS_MS.slice(0, Math.max(0, n - 1)).reduce((sum, ms) => sum + ms, 0);
}
