import { type AttributeValue, SpanKind, type SpanOptions, type Tracer } from '@opentelemetry/api';
import type { InstrumentedReceiver } from '@sms-webhooks/core/instrumentation';
import { ATTR, MESSAGING_SYSTEM } from './attributes.js';
import type { Instruments } from './instruments.js';

/**
 * How much one instrumentation records per delivery. Without `full`: the delivery span and its
 * attributes, events only for what goes wrong (an exception, a failed handler, a claim no longer held),
 * the handlers running with the delivery span active. With `full`: an event for each step (claim,
 * answer, complete or release) with the store's answer and latency, a child span per handler in whose
 * context it runs.
 */
export interface ObserverConfig {
  readonly full: boolean;
  /** Record the method, user agent, status and answer duration under the HTTP instrumentation too. */
  readonly httpDuplicates: boolean;
}

/**
 * How a delivery span starts: its options, and the attributes set once it has started. A sampler sees
 * the attributes given at the start, and decides alone for a root span; under a parent the SDK's
 * default sampler (ParentBased) follows the parent's decision, so ours sets them after the start, which
 * costs the SDK less than half as much (it copies and checks start attributes twice).
 */
export interface SpanStart {
  readonly options: SpanOptions;
  readonly after: readonly (readonly [string, AttributeValue])[];
}

/** What every delivery of one receiver shares: built once, on its first delivery. */
export interface PerReceiver {
  /** Alone: the server side of the webhook request. */
  readonly server: SpanStart;
  /** Under a span of the app's own. */
  readonly internal: SpanStart;
  /** Under the HTTP instrumentation's server span, which has the method already. */
  readonly underHttp: SpanStart;
}

/** One instrumentation's tracer, instruments and settings, shared by the observers it starts. */
export class ObserverShared {
  readonly #perReceiver = new WeakMap<InstrumentedReceiver, PerReceiver>();

  constructor(
    readonly tracer: Tracer,
    readonly instruments: Instruments,
    readonly config: ObserverConfig,
  ) {}

  forReceiver(receiver: InstrumentedReceiver): PerReceiver {
    let found = this.#perReceiver.get(receiver);
    if (found === undefined) {
      const own = Object.freeze({
        [ATTR.messagingSystem]: MESSAGING_SYSTEM,
        [ATTR.messagingOperationType]: 'process',
        [ATTR.store]: receiver.store,
        [ATTR.respond]: receiver.respond,
      });
      const attributes = Object.freeze({ [ATTR.httpMethod]: 'POST', ...own });
      const internal = Object.freeze({ kind: SpanKind.INTERNAL });
      found = {
        server: { options: { kind: SpanKind.SERVER, attributes }, after: [] },
        internal: { options: internal, after: Object.freeze(Object.entries(attributes)) },
        underHttp: { options: internal, after: Object.freeze(Object.entries(own)) },
      };
      this.#perReceiver.set(receiver, found);
    }
    return found;
  }
}
