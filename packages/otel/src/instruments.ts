import type { Attributes, Histogram, Meter } from '@opentelemetry/api';
import { ATTR, METRIC } from './attributes.js';

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
 * Deliveries answered, by their attribute set: counted here and read by the meter when it collects,
 * so a delivery costs one Map lookup by a short key instead of a recording with attribute hashing.
 * Attribute sets are few (outcome × code × event type), so the Map stays small.
 */
export class DeliveryTally {
  readonly #byKey = new Map<string, { attributes: Attributes; count: number }>();

  add(key: string, attributes: () => Attributes): void {
    const entry = this.#byKey.get(key);
    if (entry !== undefined) entry.count++;
    else this.#byKey.set(key, { attributes: attributes(), count: 1 });
  }

  observe(report: (value: number, attributes: Attributes) => void): void {
    for (const { attributes, count } of this.#byKey.values()) report(count, attributes);
  }
}

export interface Instruments {
  deliveries: DeliveryTally;
  answerDuration: Histogram<Attributes>;
  handlerDuration: Histogram<Attributes>;
  handlersActive: ActiveHandlers;
  storeDuration: Histogram<Attributes>;
}

export function createInstruments(meter: Meter): Instruments {
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
      description: 'Time from receiver.handle to the answer, by outcome and event type.',
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
      description: 'Time one dedupe store operation (or the dispatch) took, by operation and result.',
      unit: 's',
      advice: { explicitBucketBoundaries: FAST_BUCKETS },
    }),
  };
}
