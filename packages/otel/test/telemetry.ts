import { type Attributes, context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

/** A reader the test collects from on demand (no timer). */
class CollectingReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** Counts the spans of each exported batch and keeps none, as a network exporter lets go of what it sent. */
export class SentSpans implements SpanExporter {
  count = 0;
  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    this.count += spans.length;
    done({ code: 0 }); // ExportResultCode.SUCCESS
  }
  async shutdown(): Promise<void> {}
}

let contextManager: AsyncLocalStorageContextManager | undefined;

/** Node's context manager, as an SDK set-up registers it: without one no span can be made active. */
export function useAsyncContext(): void {
  if (contextManager) return;
  contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
}

export interface Telemetry {
  tracerProvider: TracerProvider;
  meterProvider: MeterProvider;
  spans(): ReadableSpan[];
  /** Forgets the finished spans kept so far. */
  reset(): void;
  span(name: string): ReadableSpan;
  /** Data points of one metric, from a fresh collection. */
  points(name: string): Promise<DataPoint<number | Histogram>[]>;
  /** The sum (counter) or count (histogram) of the points whose attributes include `match`. */
  total(name: string, match?: Attributes): Promise<number>;
  shutdown(): Promise<void>;
}

export function matches(attributes: Attributes, match: Attributes): boolean {
  return Object.entries(match).every(([key, value]) => attributes[key] === value);
}

/** An SDK of its own for one test: in-memory spans, metrics collected on demand. */
export function telemetry({
  asyncContext = true,
  batch = false,
  spanExporter,
}: {
  asyncContext?: boolean;
  batch?: boolean;
  /** Instead of the in-memory exporter (then `spans()` holds none). */
  spanExporter?: SpanExporter;
} = {}): Telemetry {
  if (asyncContext) useAsyncContext();
  const memory = new InMemorySpanExporter();
  const exporter = spanExporter ?? memory;
  // Batch: what production set-ups use (spans exported on a timer); Simple: each span as it ends, for tests.
  const processor = batch
    ? new BatchSpanProcessor({
        exporter,
        maxQueueSize: 65_536,
        maxExportBatchSize: 4096,
        scheduledDelayMillis: 50,
      })
    : new SimpleSpanProcessor({ exporter });
  const tracerProvider = new TracerProvider({ spanProcessors: [processor] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });

  async function collect(): Promise<ResourceMetrics> {
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length > 0) throw errors[0];
    return resourceMetrics;
  }

  const t: Telemetry = {
    tracerProvider,
    meterProvider,
    spans: () => memory.getFinishedSpans(),
    reset: () => memory.reset(),
    span(name) {
      const found = memory.getFinishedSpans().filter((s) => s.name === name);
      if (found.length !== 1) {
        throw new Error(
          `expected one span named ${name}, found ${found.length}: ${memory
            .getFinishedSpans()
            .map((s) => s.name)
            .join(', ')}`,
        );
      }
      return found[0]!;
    },
    async points(name) {
      const metrics = (await collect()).scopeMetrics.flatMap((s) => s.metrics);
      const metric = metrics.find((m) => m.descriptor.name === name);
      return (metric?.dataPoints ?? []) as DataPoint<number | Histogram>[];
    },
    async total(name, match = {}) {
      let sum = 0;
      for (const point of await t.points(name)) {
        if (!matches(point.attributes, match)) continue;
        sum += typeof point.value === 'number' ? point.value : point.value.count;
      }
      return sum;
    },
    async shutdown() {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
  return t;
}

/** The spans whose parent is `span`. */
export function childrenOf(spans: ReadableSpan[], span: ReadableSpan): ReadableSpan[] {
  const id = span.spanContext().spanId;
  return spans.filter((s) => s.parentSpanContext?.spanId === id);
}
