import { platform } from '../base/platform/index.js';

// A claim's owner token must differ from every other claim's, across instances and within one: a random
// prefix per process and a counter give that, for a string concatenation instead of a random draw per
// delivery. The prefix is drawn on first use, not at load: Workers refuse random values in global scope.
let prefix: string | undefined;
let counter = 0;

export function ownerToken(): string {
  prefix ??= platform.randomHex(16);
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${prefix}:${counter.toString(36)}`;
}
