import { optionMistake } from './errors.js';

/** What `receiver.handledTypes()` answers: the types with a handler of their own, and whether `onAny` is set. */
export interface HandledTypes {
  /** Event types with a handler registered by name. */
  types: readonly string[];
  /** True when an `onAny` handler takes every type. */
  any: boolean;
}

/** What {@link checkCoverage} found: event types one side has and the other does not. */
export interface CoverageReport {
  /** A handler exists but the webhook does not subscribe: those events never arrive. */
  notSubscribed: string[];
  /** The webhook subscribes but nothing handles them: they are answered 200 and dropped. */
  notHandled: string[];
  /** Both lists are empty. */
  ok: boolean;
}

/**
 * Compares a webhook's event types with a receiver's handlers, by name. `webhook.test` is exempt from
 * `notHandled`: it is there for the smoke test, and the receiver answers it 200 without a handler.
 */
export function checkCoverage(events: readonly string[], handled: HandledTypes): CoverageReport {
  if (!Array.isArray(events) || events.some((e) => typeof e !== 'string')) {
    throw optionMistake("checkCoverage(events, handled): `events` must be the webhook's event types.");
  }
  if (!Array.isArray(handled?.types) || typeof handled.any !== 'boolean') {
    throw optionMistake('checkCoverage(events, handled): `handled` is receiver.handledTypes().');
  }
  const notSubscribed = handled.types.filter((t) => !events.includes(t)).sort();
  const notHandled = handled.any
    ? []
    : events.filter((t) => t !== 'webhook.test' && !handled.types.includes(t)).sort();
  return { notSubscribed, notHandled, ok: notSubscribed.length === 0 && notHandled.length === 0 };
}
