/** The hints each owner (a receiver) has logged: a hint says the same thing every time, once is enough. */
const logged = new WeakMap<object, Set<string>>();

/**
 * True the first time `owner` asks about `kind`, false ever after: for hints about a set-up mistake that
 * every request would repeat (a body parser mounted before the webhook route). `kind` is a fixed name,
 * never request data, so a client cannot make the set grow.
 */
export function firstTime(owner: object, kind: string): boolean {
  let seen = logged.get(owner);
  if (seen === undefined) {
    seen = new Set();
    logged.set(owner, seen);
  }
  if (seen.has(kind)) return false;
  seen.add(kind);
  return true;
}
