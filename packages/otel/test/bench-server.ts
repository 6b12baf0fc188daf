/**
 * One server for the otel bench suite (test/bench/suites/otel.ts), in its own process:
 * `node --import tsx bench-server.ts '<OtelServerConfig json>'`. Same IPC as the bench's http-server.ts
 * ('ready' with the port, 'stats', 'close'), plus the number of spans the SDK exported.
 */
import type { Server } from 'node:http';
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { createReceiver, MemoryStore } from '@sms-webhooks/core';
import type { Instrumentation } from '@sms-webhooks/core/instrumentation';
import { otelInstrumentation } from '@sms-webhooks/otel';
import { serveParent, startChild } from '../../../test/bench/lib/bench-child.js';
import { BENCH_SECRET } from '../../../test/bench/lib/fixtures.js';
import { counters, type Framework } from '../../../test/bench/servers/contenders.js';
import { handInstrumentation } from './hand-instrumentation.js';
import { enableInstrumentedApp } from './instrumented-app.js';
import { SentSpans, telemetry, useAsyncContext } from './telemetry.js';

/**
 * - `none`: no `instrumentation` option;
 * - `no-sdk`: `otelInstrumentation()` with nothing registered (the API's no-ops);
 * - `context`: no instrumentation, but the SDK's async context manager registered and in use, as
 *   any SDK set-up has it: what the context manager alone costs every request;
 * - `sdk`: `otelInstrumentation()` and the SDK as an application sets it up, in-memory exporters;
 * - `sdk-full`: the same with `detail: 'full'`;
 * - `sdk-sent`: as `sdk`, but the exporter lets go of each batch as it is exported, as a network
 *   exporter does once it has sent it, where the in-memory one keeps every span until the server
 *   reads and drops them (every 200 ms): what holding the spans costs (the garbage collector's copying).
 * - `app`: an instrumented application (issue 28): the SDK with the HTTP and framework instrumentations
 *   (instrumented-app.ts), the receiver without `instrumentation`, spans exported as `sdk-sent`'s are;
 * - `app-ours`: the same application with `otelInstrumentation()` on the same providers;
 * - `hand`: the SDK and a hand-written `instrumentation` recording what ours records by default
 *   (hand-instrumentation.ts), no HTTP or framework instrumentation.
 */
export type Instrumented =
  | 'none'
  | 'no-sdk'
  | 'context'
  | 'sdk'
  | 'sdk-full'
  | 'sdk-sent'
  | 'app'
  | 'app-ours'
  | 'hand';

export interface OtelServerConfig {
  framework: Framework;
  instrumented: Instrumented;
  maxBodyBytes: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as OtelServerConfig;

async function main(): Promise<void> {
  let spans = 0;
  let pending = async () => 0;
  let instrumentation: Instrumentation | undefined;
  let shutdown = async () => {};
  if (config.instrumented === 'context') {
    // Node 20's AsyncLocalStorage hooks every promise from its first use on, which the SDK's span
    // processors make when they export (context.with, to suppress tracing of the export).
    useAsyncContext();
    context.with(ROOT_CONTEXT, () => {});
  } else if (config.instrumented === 'no-sdk') {
    // The global API with nothing registered: its no-op tracer and meter.
    instrumentation = otelInstrumentation();
  } else if (
    config.instrumented === 'sdk-sent' ||
    config.instrumented === 'app' ||
    config.instrumented === 'app-ours'
  ) {
    // An application exports over the network (OTLP): each batch is let go once sent, so the exporter
    // here counts and drops, where the in-memory one would hold every span until the server reads it.
    const sent = new SentSpans();
    const t = telemetry({ batch: true, spanExporter: sent });
    if (config.instrumented !== 'sdk-sent') {
      await enableInstrumentedApp(config.framework, t.tracerProvider, t.meterProvider);
    }
    if (config.instrumented !== 'app') {
      instrumentation = otelInstrumentation({
        tracerProvider: t.tracerProvider,
        meterProvider: t.meterProvider,
      });
    }
    pending = async () => {
      await t.tracerProvider.forceFlush();
      return sent.count;
    };
    shutdown = () => t.shutdown();
  } else if (config.instrumented === 'hand') {
    const t = telemetry({ batch: true });
    instrumentation = handInstrumentation(t.tracerProvider, t.meterProvider);
    pending = async () => {
      await t.tracerProvider.forceFlush();
      return t.spans().length;
    };
    const drop = setInterval(() => {
      spans += t.spans().length;
      t.reset();
    }, 200);
    drop.unref();
    shutdown = async () => {
      clearInterval(drop);
      await t.shutdown();
    };
  } else if (config.instrumented === 'sdk' || config.instrumented === 'sdk-full') {
    // As an application sets it up: the async context manager and a batching span processor.
    const t = telemetry({ batch: true });
    instrumentation = otelInstrumentation({
      tracerProvider: t.tracerProvider,
      meterProvider: t.meterProvider,
      detail: config.instrumented === 'sdk-full' ? 'full' : 'delivery',
    });
    // The in-memory exporter keeps every span: count and drop them so the heap does not grow all run.
    pending = async () => {
      await t.tracerProvider.forceFlush();
      return t.spans().length;
    };
    const drop = setInterval(() => {
      spans += t.spans().length;
      t.reset();
    }, 200);
    drop.unref();
    shutdown = async () => {
      clearInterval(drop);
      await t.shutdown();
    };
  }
  const receiver = createReceiver({
    secret: BENCH_SECRET,
    store: new MemoryStore(),
    maxBodyBytes: config.maxBodyBytes,
    instrumentation,
  });
  receiver.on('message.delivered', () => {
    counters.accepted++;
  });
  // Loaded only now, by import(): the instrumented application patches the frameworks as they load.
  const build = {
    express: async () => (await import('../../../test/bench/servers/express-app.js')).expressApp,
    fastify: async () => (await import('../../../test/bench/servers/fastify-app.js')).fastifyApp,
    koa: async () => (await import('../../../test/bench/servers/koa-app.js')).koaApp,
  }[config.framework];
  const server: Server = await (await build())('ours', receiver, config.maxBodyBytes).listen();
  serveParent({
    server,
    replies: {
      async stats() {
        const cpu = process.cpuUsage();
        return {
          type: 'stats',
          ...counters,
          // The flush first, then the dropped count: `spans + (await …)` read `spans` before the flush, and
          // a drop that ran during it was lost from the sum (64 of 164 once, under CI's load).
          spans: (await pending()) + spans,
          cpuMicros: cpu.user + cpu.system,
        };
      },
    },
    async close() {
      await receiver.close(2000);
      await shutdown();
    },
  });
}

startChild(main);
