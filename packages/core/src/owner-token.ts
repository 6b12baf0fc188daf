import { randomUUID } from 'node:crypto';

// A claim's owner token must differ from every other claim's, across instances and within one: a random
// prefix per process and a counter give that, for a string concatenation instead of a random draw per
// delivery.
const PROCESS_PREFIX = randomUUID();
let counter = 0;

export function ownerToken(): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${PROCESS_PREFIX}:${counter.toString(36)}`;
}
