import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { createTestDelivery } from '@sms-webhooks/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type ExampleApp } from './app.js';
import { setUpTelemetry, type Telemetry } from './telemetry.js';

const secret = 'whsec_observability_example_0123456789';
const here = fileURLToPath(new URL('.', import.meta.url));

/** The value of the one sample of `metric` whose labels include every `labels` pair. */
function sample(text: string, metric: string, labels: Record<string, string>): number {
  const found = text
    .split('\n')
    .filter((line) => line.startsWith(`${metric}{`))
    .filter((line) => Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)));
  if (found.length !== 1)
    throw new Error(`${found.length} samples of ${metric} with ${JSON.stringify(labels)}:\n${text}`);
  return Number(found[0]!.slice(found[0]!.lastIndexOf(' ') + 1));
}

describe('examples/observability: Express, OpenTelemetry SDK, Prometheus /metrics', () => {
  let telemetry: Telemetry;
  let spans: InMemorySpanExporter;
  let example: ExampleApp;
  let base: string;
  const lines: string[] = [];

  beforeAll(async () => {
    spans = new InMemorySpanExporter();
    telemetry = setUpTelemetry(spans);
    example = createApp({ secret, prometheus: telemetry.prometheus, log: (l) => lines.push(l) });
    await new Promise<void>((resolve) => example.server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(example.server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    example.server.closeAllConnections();
    await new Promise((resolve) => example.server.close(resolve));
    await example.receiver.close();
    await telemetry.shutdown();
  });

  async function send(d: { body: string; headers: Record<string, string> }): Promise<number> {
    const res = await fetch(`${base}/webhooks/sms`, { method: 'POST', headers: d.headers, body: d.body });
    await res.text();
    return res.status;
  }

  it('counts every outcome on /metrics after real deliveries', async () => {
    const delivered = [1, 2, 3].map(() => createTestDelivery('message.delivered', { secret }));
    for (const d of delivered) expect(await send(d)).toBe(200);
    expect(await send(delivered[0]!)).toBe(200); // the service's retry of the first: a duplicate
    expect(await send(createTestDelivery('message.failed', { secret }))).toBe(200);
    expect(await send(createTestDelivery('sms.completed', { secret }))).toBe(200); // no handler: ignored
    expect(
      await send(createTestDelivery('message.sent', { secret: 'whsec_forged_000000000000000000' })),
    ).toBe(400);
    expect(
      await send(createTestDelivery('message.sent', { secret: 'whsec_forged_000000000000000000' })),
    ).toBe(400);
    const get = await fetch(`${base}/webhooks/sms`);
    expect(get.status).toBe(405);
    await example.receiver.drain();

    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const deliveries = 'sms_webhooks_deliveries_total';
    expect(
      sample(text, deliveries, {
        sms_webhooks_outcome: 'received',
        sms_webhooks_event_type: 'message.delivered',
      }),
    ).toBe(3);
    expect(
      sample(text, deliveries, {
        sms_webhooks_outcome: 'received',
        sms_webhooks_event_type: 'message.failed',
      }),
    ).toBe(1);
    expect(sample(text, deliveries, { sms_webhooks_outcome: 'duplicate' })).toBe(1);
    expect(
      sample(text, deliveries, { sms_webhooks_outcome: 'ignored', sms_webhooks_event_type: 'sms.completed' }),
    ).toBe(1);
    expect(
      sample(text, deliveries, {
        sms_webhooks_outcome: 'refused',
        error_type: 'signature_mismatch',
        http_response_status_code: '400',
      }),
    ).toBe(2);
    expect(
      sample(text, deliveries, {
        sms_webhooks_outcome: 'refused',
        error_type: 'method_not_allowed',
        http_response_status_code: '405',
      }),
    ).toBe(1);
    expect(
      sample(text, 'sms_webhooks_handler_duration_count', { sms_webhooks_handler_name: 'recordStatus' }),
    ).toBe(3);
    expect(
      sample(text, 'sms_webhooks_handler_duration_count', { sms_webhooks_handler_name: 'alertOnFailure' }),
    ).toBe(1);
    expect(
      sample(text, 'sms_webhooks_handlers_active', { sms_webhooks_event_type: 'message.delivered' }),
    ).toBe(0);
    expect(
      sample(text, 'sms_webhooks_store_duration_count', {
        sms_webhooks_store_operation: 'claim',
        sms_webhooks_store_result: 'claimed',
      }),
    ).toBe(4);
    expect(
      sample(text, 'sms_webhooks_store_duration_count', {
        sms_webhooks_store_operation: 'claim',
        sms_webhooks_store_result: 'completed',
      }),
    ).toBe(1);
    expect(
      sample(text, 'sms_webhooks_answer_duration_count', {
        sms_webhooks_outcome: 'received',
        sms_webhooks_event_type: 'message.delivered',
      }),
    ).toBe(3);

    // And the traces: a delivery span for each request (the 405 the entry answered before the receiver
    // included), and the app's own span under its handler's.
    const finished = spans.getFinishedSpans();
    expect(finished.filter((s) => s.name === 'sms-webhooks delivery')).toHaveLength(9);
    const handlerSpans = finished.filter((s) => s.name === 'sms-webhooks handler recordStatus');
    const own = finished.filter((s) => s.name === 'update message status');
    expect(own).toHaveLength(3);
    for (const span of own) {
      expect(handlerSpans.map((h) => h.spanContext().spanId)).toContain(span.parentSpanContext?.spanId);
    }
    expect(lines.filter((l) => l.startsWith('message.delivered'))).toHaveLength(3);
  });
});

describe('examples/observability server.ts (its start script)', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child?.exitCode === null) child.kill('SIGKILL');
  });

  it('starts with one command, prints spans to the console and serves /metrics', async () => {
    // Node with tsx's loader runs the start script's program without the tsx CLI between it and the signal:
    // that CLI relays SIGTERM by killing its child outright (SIGKILL) when the child has not acknowledged the
    // signal within 30 ms, which a loaded machine misses, so the drain this test checks would never be seen.
    child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
      cwd: here,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', SMS_WEBHOOK_SECRET: secret, NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr!.on('data', (c: Buffer) => {
      output += c.toString();
    });
    const port = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const m = /listening on http:\/\/localhost:(\d+)\/webhooks/.exec(output);
        if (m) {
          clearInterval(timer);
          resolve(m[1]!);
        }
      }, 50);
      child!.once('exit', (code) => {
        clearInterval(timer);
        reject(new Error(`exited with ${code}:\n${output}`));
      });
    });
    const d = createTestDelivery('message.delivered', { secret });
    const res = await fetch(`http://127.0.0.1:${port}/webhooks/sms`, {
      method: 'POST',
      headers: d.headers,
      body: d.body,
    });
    expect(res.status).toBe(200);
    await res.text();
    // The handler runs after the 200; its span, printed by the console exporter, says it ran.
    const deadline = Date.now() + 10_000;
    while (!output.includes("name: 'sms-webhooks handler recordStatus'") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(output).toContain("name: 'sms-webhooks handler recordStatus'");
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(sample(metrics, 'sms_webhooks_deliveries_total', { sms_webhooks_outcome: 'received' })).toBe(1);
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(output).toContain('drained, bye');
    expect(code).toBe(0);
  }, 30_000);
});
