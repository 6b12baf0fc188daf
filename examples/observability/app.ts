import { createServer, type Server } from 'node:http';
import { trace } from '@opentelemetry/api';
import type { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { createReceiver, type Logger, type Receiver, type RespondMode } from '@sms-webhooks/core';
import { webhookMiddleware } from '@sms-webhooks/express';
import { otelInstrumentation } from '@sms-webhooks/otel';
import express, { type Express } from 'express';

export interface ExampleOptions {
  secret: string | string[];
  /** From setUpTelemetry(): renders the metrics on GET /metrics. */
  prometheus: PrometheusExporter;
  respond?: RespondMode;
  /** Where the app says what it received. Default console.log. */
  log?: (line: string) => void;
}

export interface ExampleApp {
  app: Express;
  receiver: Receiver;
  server: Server;
}

/** The Express app: POST /webhooks/sms with every delivery traced and counted, GET /metrics for Prometheus. */
export function createApp({ secret, prometheus, respond, log = console.log }: ExampleOptions): ExampleApp {
  const logger: Logger = {
    warn: (...args) => log(`warn: ${args.join(' ')}`),
    error: (...args) => log(`error: ${args.join(' ')}`),
  };
  // Called after setUpTelemetry(): it takes the global tracer and meter providers the SDK registered.
  // detail 'full': each step as an event and each handler as a span (the default records the delivery
  // span alone, for throughput); and MemoryStore's latency, which the default leaves out.
  const instrumentation = otelInstrumentation({ detail: 'full' });
  const receiver = createReceiver({ secret, respond, logger, instrumentation });
  const tracer = trace.getTracer('example-observability');

  receiver.on(['message.sent', 'message.delivered'], async function recordStatus(event) {
    // Your own spans nest under the handler's span: here a stand-in for a database write.
    await tracer.startActiveSpan('update message status', async (span) => {
      span.setAttribute('message.id', event.data.id);
      log(`${event.type} ${event.id}: message ${event.data.id} to ${event.data.to}`);
      span.end();
    });
  });
  receiver.on('message.failed', async function alertOnFailure(event) {
    log(`${event.type} ${event.id}: ${event.data.to} failed: ${event.data.error?.code ?? 'unknown'}`);
  });
  receiver.onError((error) => log(`error: handler failed for ${error.event.id}: ${error.message}`));

  const app = express();
  app.all('/webhooks/sms', webhookMiddleware(receiver));
  app.get('/metrics', (req, res) => prometheus.getMetricsRequestHandler(req, res));
  return { app, receiver, server: createServer(app) };
}
