import { connect } from 'node:net';
import { SpanKind } from '@opentelemetry/api';
import { createReceiver, createTestDelivery, type Receiver } from '@sms-webhooks/core';
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

  async function start(limits: { maxConcurrency?: number; maxQueue?: number } = {}): Promise<string> {
    t = telemetry();
    receiver = createReceiver({
      ...limits,
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

  it('503: past maxConcurrency and maxQueue, answered before the body', async () => {
    const url = await start({ maxConcurrency: 1, maxQueue: 0 });
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let running = () => {};
    const started = new Promise<void>((resolve) => {
      running = resolve;
    });
    receiver.on('message.sent', async () => {
      running();
      await gate;
    });
    const first = createTestDelivery('message.sent', { secret });
    expect((await fetch(url, { method: 'POST', headers: first.headers, body: first.body })).status).toBe(200);
    await started;
    // Declared and never sent: only an answer before the body can come.
    expect(await stalledUpload(url, 500, 20)).toMatch(/^HTTP\/1\.1 503/);
    open();
    await receiver.drain();
    const refused = t.spans().find((s) => s.attributes[ATTR.errorType] === 'overloaded');
    expect(refused?.attributes).toMatchObject({ [ATTR.outcome]: 'refused', [ATTR.httpStatus]: 503 });
    // A 5xx is the server's: the span's status is an error.
    expect(refused?.status.code).toBe(2);
    expect(
      await t.total(METRIC.deliveries, { [ATTR.outcome]: 'refused', [ATTR.errorType]: 'overloaded' }),
    ).toBe(1);
  });

  it('408: a body that stops arriving', async () => {
    const url = await start();
    expect(await stalledUpload(url, 500, 20)).toMatch(/^HTTP\/1\.1 408/);
    expectRefusalSpan(408, 'request_timeout');
  });
});

describe('@sms-webhooks/otel: a verified delivery refused past maxConcurrency', () => {
  it('is counted refused with the code overloaded, not failed', async () => {
    const t = telemetry();
    try {
      const receiver = createReceiver({
        secret,
        logger: quiet,
        maxConcurrency: 1,
        maxQueue: 0,
        respond: 'after-handlers',
        instrumentation: otelInstrumentation({
          tracerProvider: t.tracerProvider,
          meterProvider: t.meterProvider,
        }),
      });
      let open = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      receiver.on('message.sent', () => gate);
      const [a, b] = [
        createTestDelivery('message.sent', { secret }),
        createTestDelivery('message.sent', { secret }),
      ];
      // Both pass verification together; the second finds the one slot taken.
      const first = receiver.handle({ rawBody: a.body, headers: a.headers });
      const second = await receiver.handle({ rawBody: b.body, headers: b.headers });
      expect(second.status).toBe(503);
      open();
      expect((await first).status).toBe(200);
      const refused = t.spans().find((s) => s.attributes[ATTR.errorType] === 'overloaded');
      expect(refused?.attributes).toMatchObject({
        [ATTR.outcome]: 'refused',
        [ATTR.messageId]: b.event.id,
      });
      expect(
        await t.total(METRIC.deliveries, { [ATTR.outcome]: 'refused', [ATTR.errorType]: 'overloaded' }),
      ).toBe(1);
    } finally {
      await t.shutdown();
    }
  });
});
