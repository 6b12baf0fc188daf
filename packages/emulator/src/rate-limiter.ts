import { ApiError } from './api-error.js';
import type { RateLimitOptions } from './options.js';

/** Scopes include refused keys, so the map is pruned rather than left to grow. */
const MAX_SCOPES = 10_000;

/** Fixed-window counter per scope; the spec shows a 429 but not its thresholds. */
export class RateLimiter {
  private readonly windows = new Map<string, { startMs: number; count: number }>();

  constructor(
    private readonly options: RateLimitOptions | false,
    private readonly now: () => number,
  ) {}

  hit(scope: string): void {
    if (!this.options) return;
    const { limit, windowMs } = this.options;
    const now = this.now();
    let window = this.windows.get(scope);
    if (!window || now - window.startMs >= windowMs) {
      if (this.windows.size >= MAX_SCOPES) this.prune(now, windowMs);
      window = { startMs: now, count: 0 };
      this.windows.set(scope, window);
    }
    window.count += 1;
    if (window.count > limit) {
      const retryAfter = Math.max(1, Math.ceil((window.startMs + windowMs - now) / 1000));
      throw new ApiError(
        429,
        'rate_limited',
        `Too many requests: at most ${limit} per ${windowMs} ms. Retry after ${retryAfter} s.`,
        undefined,
        { 'retry-after': String(retryAfter) },
      );
    }
  }

  private prune(now: number, windowMs: number): void {
    for (const [scope, w] of this.windows) if (now - w.startMs >= windowMs) this.windows.delete(scope);
  }
}
