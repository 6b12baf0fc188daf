/**
 * Body-read time-outs for every request in progress, checked by one shared, unref'd interval. A timer per
 * request (insert and remove on Node's timer lists) costs more than everything else reading a small
 * body does. Pending deadlines are a doubly linked list, oldest first: a Set that fills and empties with
 * every request rehashes as it grows and shrinks, which allocates. A deadline fires up to one tick late.
 */
import { type Clock, systemClock } from '../verify/clock.js';

const TICK_MS = 100;

export interface Deadline {
  at: number;
  onExpiry: () => void;
  /** A test clock's timer, in place of the shared sweeper. */
  cancel: (() => void) | undefined;
  /** Fired or cleared: out of the list for good. */
  done: boolean;
  prev: Deadline | undefined;
  next: Deadline | undefined;
}

let head: Deadline | undefined;
let tail: Deadline | undefined;
let sweeper: NodeJS.Timeout | undefined;

function unlink(deadline: Deadline): void {
  if (deadline.prev === undefined) head = deadline.next;
  else deadline.prev.next = deadline.next;
  if (deadline.next === undefined) tail = deadline.prev;
  else deadline.next.prev = deadline.prev;
  deadline.prev = deadline.next = undefined;
}

function sweep(): void {
  const now = performance.now();
  const due: Deadline[] = [];
  for (let deadline = head; deadline !== undefined; deadline = deadline.next) {
    if (deadline.at <= now) due.push(deadline);
  }
  // Oldest first; one that an earlier firing cleared is skipped.
  for (const deadline of due) {
    if (deadline.done) continue;
    deadline.done = true;
    unlink(deadline);
    deadline.onExpiry();
  }
  if (head === undefined) stop();
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
    return { at: clock.now() + ms, onExpiry, cancel, done: false, prev: undefined, next: undefined };
  }
  const at = performance.now() + ms;
  const deadline: Deadline = { at, onExpiry, cancel: undefined, done: false, prev: tail, next: undefined };
  if (tail === undefined) head = deadline;
  else tail.next = deadline;
  tail = deadline;
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
  else if (!deadline.done) {
    deadline.done = true;
    unlink(deadline);
  }
}
