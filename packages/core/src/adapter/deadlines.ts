/**
 * Body-read time-outs for every request in progress, checked by one shared, unref'd interval. A timer per
 * request (insert and remove on Node's timer lists) costs more than everything else reading a small
 * body does; a list entry costs almost nothing. A deadline fires up to one tick late.
 */
import { type Linked, LinkedList } from '../receiver/linked-list.js';
import { type Clock, systemClock } from '../verify/clock.js';

const TICK_MS = 100;

export interface Deadline extends Linked<Deadline> {
  at: number;
  onExpiry: () => void;
  /** A test clock's timer, in place of the shared sweeper. */
  cancel: (() => void) | undefined;
}

const pending = new LinkedList<Deadline>();
let sweeper: NodeJS.Timeout | undefined;

function sweep(): void {
  const now = performance.now();
  // Oldest first; one that an earlier firing cleared is skipped (its removal says so).
  for (const deadline of pending.toArray()) {
    if (deadline.at <= now && pending.remove(deadline)) deadline.onExpiry();
  }
  if (pending.size === 0) stop();
}

function stop(): void {
  clearInterval(sweeper);
  sweeper = undefined;
}

/**
 * Calls `onExpiry` once, `ms` from now, unless `clearDeadline` comes first. A receiver's own clock (a
 * test's `VirtualClock`) gets a timer of its own, so moving that clock on expires the deadline.
 */
export function setDeadline(ms: number, onExpiry: () => void, clock: Clock = systemClock): Deadline {
  if (clock !== systemClock) {
    const cancel = clock.setTimer(onExpiry, ms);
    return { at: clock.now() + ms, onExpiry, cancel, prev: undefined, next: undefined, listed: false };
  }
  const at = performance.now() + ms;
  const deadline: Deadline = {
    at,
    onExpiry,
    cancel: undefined,
    prev: undefined,
    next: undefined,
    listed: false,
  };
  pending.push(deadline);
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
  if (deadline.cancel !== undefined) deadline.cancel();
  else pending.remove(deadline);
}
