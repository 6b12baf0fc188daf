import { describeValue, optionError, positiveOption } from '@sms-webhooks/internal';
import { OWNER } from './topology.js';

/** RabbitMQ's `x-message-ttl` takes up to 2^32 - 1 ms; waits are kept to a day, far below it. */
const MAX_DELAY_MS = 24 * 60 * 60 * 1000;

/**
 * The wait after each failed run but the last: `backoffMs` doubled after each (2, 4, 8 … s by default),
 * or the list given, its last entry repeated. Each distinct wait is one retry queue.
 */
export function retryDelays(attempts: number, backoffMs: unknown): number[] {
  const waits: number[] = [];
  if (Array.isArray(backoffMs)) {
    if (backoffMs.length === 0) {
      throw optionError(OWNER, '`backoffMs` as a list needs at least one wait, in ms.');
    }
    for (const [i, wait] of backoffMs.entries()) {
      positiveOption(`backoffMs[${i}]`, wait, 0, { owner: OWNER, integer: true, unit: 'ms' });
    }
    for (let run = 0; run < attempts - 1; run++)
      waits.push(Math.min(backoffMs[Math.min(run, backoffMs.length - 1)], MAX_DELAY_MS));
    return waits;
  }
  if (backoffMs !== undefined && typeof backoffMs !== 'number') {
    throw optionError(
      OWNER,
      `\`backoffMs\` must be a positive integer of ms or a list of them, got ${describeValue(backoffMs)}.`,
    );
  }
  const first = positiveOption('backoffMs', backoffMs, 2000, { owner: OWNER, integer: true, unit: 'ms' });
  for (let run = 0; run < attempts - 1; run++) waits.push(Math.min(first * 2 ** run, MAX_DELAY_MS));
  return waits;
}
