import { connect } from 'node:net';
import { SpanKind } from '@opentelemetry/api';
import { createReceiver, type Receiver } from '@sms-webhooks/core';
import { ATTR, METRIC, otelInstrumentation, SPAN } from '@sms-webhooks/otel';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS, type Running, serve } from './servers.js';
import { type Telemetry, telemetry } from './telemetry.js';

const secret = 'whsec_otel_refusal_tests_0123456789abcdef';
const quiet = { warn() {}, error() {} };

/** Sends the headers and `sent` bytes of a body declared `declared` long, then waits for the answer. */
function stalledUpload(url: string, declared: number, sent: number): Promise<string> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n${'x'.repeat(sent)}`,
      );
    });
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      answer += chunk;
      if (answer.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(answer.slice(0, answer.indexOf('\r\n')));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer.slice(0, answer.indexOf('\r\n'))));
  });
}

describe.each(ADAPTERS)('@sms-webhooks/otel: refusals the %s entry answers get a span', (adapter) => {
  let t: Telemetry;
  let running: Running | undefined;
  let receiver: Receiver;

  async function start(): Promise<string> {
    t = telemetry();
    receiver = createReceiver({
      secret,
      logger: quiet,
      maxBodyBytes: 1024,
      bodyTimeoutMs: 300,
      instrumentation: otelInstrumentation({
        tracerProvider: t.tracerProvider,
        meterProvider: t.meterProvider,
      }),
    });
    receiver.on('message.delivered', () => {});
    running = await serve(adapter, receiver);
    return running.url;
  }

  afterEach(async () => {
    await running?.close();
    running = undefined;
    await t?.shutdown();
  });

  function expectRefusalSpan(status: number, code: string): void {
    const span = t.span(SPAN.delivery);
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.attributes).toMatchObject({
      [ATTR.outcome]: 'refused',
      [ATTR.httpStatus]: status,
      [ATTR.errorType]: code,
      [ATTR.messagingSystem]: 'sms_webhooks',
    });
    expect(span.attributes[ATTR.messageId]).toBeUndefined();
    // A 4xx is the client's error: the span's status stays unset, as for HTTP server spans.
    expect(span.status.code).toBe(0);
  }

  it('405: a GET', async () => {
    const url = await start();
    const get = await fetch(url);
    await get.text();
    expect(get.status).toBe(405);
    expectRefusalSpan(405, 'method_not_allowed');
    expect(await t.total(METRIC.deliveries, { [ATTR.outcome]: 'refused', [ATTR.httpStatus]: 405 })).toBe(1);
  });

  it('413: a body over maxBodyBytes', async () => {
    const url = await start();
    const post = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(4096),
    });
    await post.text();
    expect(post.status).toBe(413);
    expectRefusalSpan(413, 'payload_too_large');
  });

  it('408: a body that stops arriving', async () => {
    const url = await start();
    expect(await stalledUpload(url, 500, 20)).toMatch(/^HTTP\/1\.1 408/);
    expectRefusalSpan(408, 'request_timeout');
  });
});
