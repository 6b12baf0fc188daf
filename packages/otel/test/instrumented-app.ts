/**
 * An application's usual OpenTelemetry set-up for the otel bench (issue 28): the HTTP server
 * instrumentation plus the framework's own (`@opentelemetry/instrumentation-express`, `-koa`, or
 * `@fastify/otel`), registered on the given providers before the framework is loaded. ESM imports are
 * patched through the instrumentation package's loader hook (import-in-the-middle), which `enable()`
 * registers with `module.register` first: the bench servers load the frameworks by `import()`.
 */
import { register } from 'node:module';
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import type { Framework } from '../../../test/bench/servers/contenders.js';

export async function enableInstrumentedApp(
  framework: Framework,
  tracerProvider: TracerProvider,
  meterProvider: MeterProvider,
): Promise<void> {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const instrumentations: unknown[] = [new HttpInstrumentation()];
  if (framework === 'express') {
    const { ExpressInstrumentation } = await import('@opentelemetry/instrumentation-express');
    instrumentations.push(new ExpressInstrumentation());
  } else if (framework === 'koa') {
    const { KoaInstrumentation } = await import('@opentelemetry/instrumentation-koa');
    instrumentations.push(new KoaInstrumentation());
  } else {
    const { FastifyOtelInstrumentation } = await import('@fastify/otel');
    instrumentations.push(new FastifyOtelInstrumentation({ registerOnInitialization: true }));
  }
  registerInstrumentations({
    tracerProvider,
    meterProvider,
    instrumentations: instrumentations as Parameters<typeof registerInstrumentations>[0]['instrumentations'],
  });
}
