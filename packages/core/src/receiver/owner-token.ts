import { platform } from '../base/platform/index.js';

// Unique across instances (a random prefix per process) and within one (a counter). The prefix is drawn on
// first use: Workers refuse random values at load.
let prefix: string | undefined;
let counter = 0;

export function ownerToken(): string {
  prefix ??= platform.randomHex(16);
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${prefix}:${counter.toString(36)}`;
}
