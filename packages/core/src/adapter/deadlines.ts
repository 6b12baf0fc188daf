/**
 * Body-read time-outs for every request in progress, checked by one shared, unref'd interval. A timer per
 * request (insert and remove on Node's timer lists) costs more than everything else reading a small
 * body does; a Set entry costs almost nothing. A deadline fires up to one tick late.
 */
const TICK_MS = 100;

export interface Deadline {
  at: number;
  onExpiry: () => void;
}

const pending = new Set<Deadline>();
let sweeper: NodeJS.Timeout | undefined;

function sweep(): void {
  const now = performance.now();
  for (const deadline of pending) {
    if (deadline.at <= now) {
      pending.delete(deadline);
      deadline.onExpiry();
    }
  }
  if (pending.size === 0) stop();
}

function stop(): void {
  clearInterval(sweeper);
  sweeper = undefined;
}

/** Calls `onExpiry` once, `ms` from now, unless `clearDeadline` comes first. */
export function setDeadline(ms: number, onExpiry: () => void): Deadline {
  const deadline = { at: performance.now() + ms, onExpiry };
  pending.add(deadline);
  if (sweeper === undefined) {
    sweeper = setInterval(sweep, Math.min(TICK_MS, ms));
    sweeper.unref();
  }
  return deadline;
}

/**
 * The sweeper is left to stop itself on its next tick when nothing is pending: stopping it here would
 * restart it (a timer-list insert) for nearly every request on a server that reads bodies one at a time.
 */
export function clearDeadline(deadline: Deadline): void {
  pending.delete(deadline);
}
