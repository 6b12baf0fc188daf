import type { Attributes, Histogram, Meter } from '@opentelemetry/api';
import { ATTR, METRIC } from './attributes.js';
import type { AcceptedOutcome } from './outcome.js';

// Seconds, as OpenTelemetry's duration metrics are; most answers and store operations take well under
// a millisecond, so the buckets start lower than the HTTP conventions' 5 ms.
const FAST_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
const HANDLER_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/**
 * Handlers running, by event type: plain counts that the meter reads when it collects, so a handler's
 * start and end cost two integer updates instead of two recordings with attribute hashing.
 */
export class ActiveHandlers {
  readonly #byType = new Map<string, { attributes: Attributes; count: number }>();

  entry(eventType: string): { count: number } {
    let entry = this.#byType.get(eventType);
    if (entry === undefined) {
      entry = { attributes: { [ATTR.eventType]: eventType }, count: 0 };
      this.#byType.set(eventType, entry);
    }
    return entry;
  }

  observe(report: (value: number, attributes: Attributes) => void): void {
    for (const { attributes, count } of this.#byType.values()) report(count, attributes);
  }
}

/**
 * One attribute set of the deliveries counter: its attributes (built once), the answer-duration
 * histogram's (the same without the status code) and its count.
 */
export interface DeliveryEntry {
  readonly attributes: Attributes;
  readonly durationAttributes: Attributes;
  count: number;
}

function entry(attributes: Attributes): DeliveryEntry {
  // The status follows from the outcome and the error code (the response table), so the histogram
  // leaves it out: the SDK hashes every attribute of every point it records, about 0.4 µs each here.
  const { [ATTR.httpStatus]: _status, ...durationAttributes } = attributes;
  return {
    attributes: Object.freeze(attributes),
    durationAttributes: Object.freeze(durationAttributes),
    count: 0,
  };
}

/**
 * Deliveries answered, by their attribute set: counted here and read by the meter when it collects,
 * so a delivery costs a Map lookup instead of a recording with attribute hashing. Each set's attributes
 * (and the answer-duration histogram's) are built once, so a delivery allocates none. Sets are
 * few (outcome × code × event type), so the Maps stay small.
 */
export class DeliveryTally {
  /** Verified deliveries answered 200, by event type: the hot path, found without building a key. */
  readonly #accepted = new Map<string, Record<AcceptedOutcome, DeliveryEntry>>();
  /** Every other answer, by a key of its attributes. */
  readonly #other = new Map<string, DeliveryEntry>();

  accepted(outcome: AcceptedOutcome, eventType: string): DeliveryEntry {
    let byOutcome = this.#accepted.get(eventType);
    if (byOutcome === undefined) {
      const set = (o: string) =>
        entry({ [ATTR.outcome]: o, [ATTR.httpStatus]: 200, [ATTR.eventType]: eventType });
      byOutcome = {
        received: set('received'),
        duplicate: set('duplicate'),
        ignored: set('ignored'),
        stale: set('stale'),
      };
      this.#accepted.set(eventType, byOutcome);
    }
    return byOutcome[outcome];
  }

  /** Any other answer (`status` undefined: `handle` threw, there is no answer). */
  other(
    outcome: string,
    status: number | undefined,
    code: string | undefined,
    eventType: string | undefined,
  ): DeliveryEntry {
    const key = `${outcome} ${status} ${code} ${eventType}`;
    let found = this.#other.get(key);
    if (found === undefined) {
      const attributes: Attributes = { [ATTR.outcome]: outcome };
      if (status !== undefined) attributes[ATTR.httpStatus] = status;
      if (code !== undefined) attributes[ATTR.errorType] = code;
      if (eventType !== undefined) attributes[ATTR.eventType] = eventType;
      found = entry(attributes);
      this.#other.set(key, found);
    }
    return found;
  }

  observe(report: (value: number, attributes: Attributes) => void): void {
    for (const byOutcome of this.#accepted.values()) {
      for (const { attributes, count } of Object.values(byOutcome)) if (count > 0) report(count, attributes);
    }
    for (const { attributes, count } of this.#other.values()) report(count, attributes);
  }
}

/**
 * Attribute sets built once per key and reused for every recording with them (handler names by event
 * type, store operations by result), so the hot path allocates none.
 */
export class AttributeSets {
  readonly #byKey = new Map<string, Map<string, Attributes>>();

  get(a: string, b: string, build: (a: string, b: string) => Attributes): Attributes {
    let inner = this.#byKey.get(a);
    if (inner === undefined) {
      inner = new Map();
      this.#byKey.set(a, inner);
    }
    let found = inner.get(b);
    if (found === undefined) {
      found = Object.freeze(build(a, b));
      inner.set(b, found);
    }
    return found;
  }
}

export interface Instruments {
  deliveries: DeliveryTally;
  answerDuration: Histogram<Attributes>;
  handlerDuration: Histogram<Attributes>;
  handlersActive: ActiveHandlers;
  storeDuration: Histogram<Attributes>;
  /** `handlerDuration`'s attributes by event type and handler name. */
  handlerSets: AttributeSets;
  /** `storeDuration`'s attributes by operation and result. */
  storeSets: AttributeSets;
}

// One set per meter: the two asynchronous counters are read through callbacks, and when two
// instrumentations on one meter (two receivers, or one per tenant) each registered its own, every
// collection kept one callback's count per attribute set and dropped the others'.
const byMeter = new WeakMap<Meter, Instruments>();

/** The instruments of `meter`, made on its first use and shared by every instrumentation on it. */
export function instrumentsFor(meter: Meter): Instruments {
  let found = byMeter.get(meter);
  if (found === undefined) {
    found = createInstruments(meter);
    byMeter.set(meter, found);
  }
  return found;
}

function createInstruments(meter: Meter): Instruments {
  const active = new ActiveHandlers();
  const deliveries = new DeliveryTally();
  meter
    .createObservableCounter(METRIC.deliveries, {
      description: 'Webhook requests answered, by outcome and error code (refusals included).',
      unit: '{delivery}',
    })
    .addCallback((result) => deliveries.observe((value, attributes) => result.observe(value, attributes)));
  meter
    .createObservableUpDownCounter(METRIC.handlersActive, {
      description: 'Handlers running right now, by event type.',
      unit: '{handler}',
    })
    .addCallback((result) => active.observe((value, attributes) => result.observe(value, attributes)));
  return {
    deliveries,
    answerDuration: meter.createHistogram(METRIC.answerDuration, {
      description: 'Time from receiver.handle to the answer, by outcome, error code and event type.',
      unit: 's',
      advice: { explicitBucketBoundaries: FAST_BUCKETS },
    }),
    handlerDuration: meter.createHistogram(METRIC.handlerDuration, {
      description: 'Time one handler ran, by event type, handler name and error type.',
      unit: 's',
      advice: { explicitBucketBoundaries: HANDLER_BUCKETS },
    }),
    handlersActive: active,
    storeDuration: meter.createHistogram(METRIC.storeDuration, {
      description:
        'Time one asynchronous dedupe store operation (or the dispatch) took, by operation and result.',
      unit: 's',
      advice: { explicitBucketBoundaries: FAST_BUCKETS },
    }),
    handlerSets: new AttributeSets(),
    storeSets: new AttributeSets(),
  };
}
