import { createReceiver, createTestDelivery, MemoryStore } from '@sms-webhooks/core';
import { captureLogger, deferred } from '@sms-webhooks/test-helpers';
import { webhookHandler } from '@sms-webhooks/web';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { chunkedStream, endlessStream, secret } from './helpers.js';

const URL_ = 'http://localhost/webhooks';

function setup(options: Partial<Parameters<typeof createReceiver>[0]> = {}) {
  const logger = captureLogger();
  const receiver = createReceiver({ secret, logger, store: new MemoryStore(), ...options });
  const seen: string[] = [];
  receiver.on('message.delivered', (event) => {
    seen.push(event.id);
  });
  return { receiver, logger, seen };
}

function post(body: BodyInit | null, headers: Record<string, string>) {
  return new Request(URL_, { method: 'POST', body, headers, duplex: 'half' } as RequestInit);
}

describe('webhookHandler with a Web Request', () => {
  it('answers 200 for a signed delivery and runs the handler once; a redelivery is a duplicate', async () => {
    const { receiver, seen } = setup();
    const handler = webhookHandler(receiver);
    const d = createTestDelivery('message.delivered', { secret });

    const first = await handler(post(d.body, d.headers));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/application\/json/);
    expect(await first.json()).toEqual({ received: true });
    await receiver.drain();
    expect(seen).toEqual([d.event.id]);

    const again = await handler(post(d.body, d.headers));
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    await receiver.drain();
    expect(seen).toHaveLength(1);
  });

  it('verifies the exact bytes even when multi-byte characters are split across stream chunks', async () => {
    const { receiver, seen } = setup();
    const d = createTestDelivery('message.delivered', {
      secret,
      data: { metadata: { note: 'héllo wörld ✓ 😀 café' } },
    });
    const res = await webhookHandler(receiver)(
      post(chunkedStream(new TextEncoder().encode(d.body), 3), d.headers),
    );
    expect(res.status).toBe(200);
    await receiver.drain();
    expect(seen).toEqual([d.event.id]);
  });

  it('refuses a forged delivery with 400 signature_mismatch and never runs a handler', async () => {
    const { receiver, seen } = setup();
    const d = createTestDelivery('message.delivered', { secret: 'whsec_someoneelse0123456789' });
    const res = await webhookHandler(receiver)(post(d.body, d.headers));
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('signature_mismatch');
    await receiver.drain();
    expect(seen).toEqual([]);
  });

  it('answers an empty body with a coded 400', async () => {
    const { receiver } = setup();
    const d = createTestDelivery('message.delivered', { secret });
    const res = await webhookHandler(receiver)(post(null, d.headers));
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toMatch(/^(signature_mismatch|payload_invalid)$/);
  });

  it.each(['GET', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'])(
    'answers %s with 405 and Allow: POST',
    async (method) => {
      const { receiver } = setup();
      const res = await webhookHandler(receiver)(new Request(URL_, { method }));
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      if (method !== 'HEAD') expect((await res.json()).error.code).toBe('method_not_allowed');
    },
  );

  it('refuses a declared content-length over the limit with 413 without reading the body', async () => {
    const { receiver } = setup({ maxBodyBytes: 1024 });
    const { stream, state } = endlessStream(new Uint8Array(100));
    const res = await webhookHandler(receiver)(post(stream, { 'content-length': '5000' }));
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe('payload_too_large');
    expect(state.cancelled).toBe(true);
    // ReadableStream may pre-pull to fill its queue (highWaterMark 1 chunk); nothing more than that.
    expect(state.pulledBytes).toBeLessThanOrEqual(100);
  });

  it('stops reading an endless body as soon as it passes the limit: 413, stream cancelled', async () => {
    const { receiver, seen } = setup({ maxBodyBytes: 4096 });
    const { stream, state } = endlessStream(new Uint8Array(1000).fill(0x7b));
    const res = await webhookHandler(receiver)(post(stream, { 'x-service-signature': 't=1,v1=00' }));
    expect(res.status).toBe(413);
    expect((await res.json()).error).toEqual({
      code: 'payload_too_large',
      message: 'Body is larger than the limit of 4096 bytes.',
    });
    expect(state.cancelled).toBe(true);
    expect(state.pulledBytes).toBeLessThanOrEqual(4096 + 2 * 1000);
    expect(seen).toEqual([]);
  });

  it('accepts a body of exactly maxBodyBytes', async () => {
    const probe = createTestDelivery('message.delivered', { secret });
    const size = Buffer.byteLength(probe.body);
    const { receiver } = setup({ maxBodyBytes: size });
    const res = await webhookHandler(receiver)(post(probe.body, probe.headers));
    expect(res.status).toBe(200);
    const { receiver: smaller } = setup({ maxBodyBytes: size - 1 });
    const refused = await webhookHandler(smaller)(post(probe.body, probe.headers));
    expect(refused.status).toBe(413);
  });

  it('answers a body stream that fails mid-read with 400 payload_invalid', async () => {
    const { receiver } = setup();
    let sent = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(new Error('socket hang up'));
        sent = true;
        controller.enqueue(new TextEncoder().encode('{"id":'));
      },
    });
    const res = await webhookHandler(receiver)(post(stream, {}));
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('payload_invalid');
  });

  it('answers 500 raw_body_unavailable, with a hint in the log, when the body was already read', async () => {
    const { receiver, logger } = setup();
    const d = createTestDelivery('message.delivered', { secret });
    const request = post(d.body, d.headers);
    await request.json();
    const res = await webhookHandler(receiver)(request);
    expect(res.status).toBe(500);
    expect((await res.json()).error.code).toBe('raw_body_unavailable');
    expect(logger.text()).toMatch(/already read.*c\.req\.raw/s);
  });

  it('logs the body-already-read hint once per receiver, however many requests come that way', async () => {
    const { receiver, logger } = setup();
    const handlers = [webhookHandler(receiver), webhookHandler(receiver)];
    for (const handler of [...handlers, ...handlers]) {
      const d = createTestDelivery('message.delivered', { secret });
      const request = post(d.body, d.headers);
      await request.text();
      expect((await handler(request)).status).toBe(500);
    }
    expect(logger.lines.filter((line) => line.includes('already read'))).toHaveLength(1);
  });

  it('passes core statuses through: 503 store_unavailable with Retry-After when the store is down', async () => {
    const fail = () => Promise.reject(new Error('connect ECONNREFUSED'));
    const { receiver } = setup({ store: { localKeys: false, claim: fail, complete: fail, release: fail } });
    const d = createTestDelivery('message.delivered', { secret });
    const res = await webhookHandler(receiver)(post(d.body, d.headers));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('30');
    expect((await res.json()).error.code).toBe('store_unavailable');
  });

  it('refuses a look-alike with handle() but no options at creation, instead of failing every request', () => {
    const lookAlike = { handle: async () => ({ status: 200, headers: {}, body: '{}', json: {} }) };
    expect(() => webhookHandler(lookAlike as never)).toThrow(
      /^@sms-webhooks\/web: webhookHandler\(receiver\) needs a receiver from createReceiver\(\); got an object with handle\(\) but without the options/,
    );
  });

  it('refuses a non-receiver and a non-function waitUntil at creation', () => {
    const { receiver } = setup();
    expect(() => webhookHandler({} as never)).toThrow(/needs a receiver/);
    expect(() => webhookHandler(receiver, { waitUntil: 'yes' as never })).toThrow(
      /`waitUntil` must be a function/,
    );
  });
});

describe('webhookHandler waitUntil', () => {
  it('gives the option the background work, which resolves only after the handler finished', async () => {
    const gate = deferred();
    const receiver = createReceiver({ secret, logger: captureLogger() });
    let done = false;
    receiver.on('message.delivered', async () => {
      await gate.promise;
      done = true;
    });
    const kept: Promise<unknown>[] = [];
    const handler = webhookHandler(receiver, { waitUntil: (p) => kept.push(p) });
    const d = createTestDelivery('message.delivered', { secret });

    const res = await handler(post(d.body, d.headers));
    expect(res.status).toBe(200);
    expect(kept).toHaveLength(1);
    let settled = false;
    kept[0]!.then(() => {
      settled = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    gate.resolve();
    await kept[0];
    expect(done).toBe(true);
  });

  it("prefers the request's own context (Cloudflare's ctx), called with that context as this", async () => {
    const receiver = createReceiver({ secret, logger: captureLogger() });
    receiver.on('message.delivered', () => {});
    const fromOption: unknown[] = [];
    const ctx = {
      kept: [] as unknown[],
      waitUntil(this: { kept: unknown[] }, p: Promise<unknown>) {
        this.kept.push(p);
      },
    };
    const handler = webhookHandler(receiver, { waitUntil: (p) => fromOption.push(p) });
    const d = createTestDelivery('message.delivered', { secret });
    expect((await handler(post(d.body, d.headers), ctx)).status).toBe(200);
    expect(ctx.kept).toHaveLength(1);
    expect(fromOption).toHaveLength(0);

    // A context without waitUntil (Next.js's { params }, Deno's info) falls back to the option.
    const d2 = createTestDelivery('message.delivered', { secret });
    await handler(post(d2.body, d2.headers), { params: Promise.resolve({}) });
    expect(fromOption).toHaveLength(1);
  });
});

describe('webhookHandler in Hono (app.request)', () => {
  function app(options: Partial<Parameters<typeof createReceiver>[0]> = {}) {
    const s = setup(options);
    const hono = new Hono();
    const handler = webhookHandler(s.receiver);
    hono.all('/webhooks', (c) => handler(c.req.raw));
    hono.get('/health', (c) => c.text('ok'));
    return { ...s, hono };
  }

  it('handles a signed delivery and a duplicate, leaving other routes alone', async () => {
    const { hono, receiver, seen } = app();
    const d = createTestDelivery('message.delivered', { secret });
    const res = await hono.request('/webhooks', { method: 'POST', body: d.body, headers: d.headers });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true });
    await receiver.drain();
    const dup = await hono.request('/webhooks', { method: 'POST', body: d.body, headers: d.headers });
    expect(await dup.json()).toEqual({ received: true, duplicate: true });
    await receiver.drain();
    expect(seen).toEqual([d.event.id]);
    expect(await (await hono.request('/health')).text()).toBe('ok');
  });

  it('answers 405 for GET on the webhook path and 413 past the limit', async () => {
    const { hono } = app({ maxBodyBytes: 64 });
    const get = await hono.request('/webhooks');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const big = await hono.request('/webhooks', { method: 'POST', body: 'x'.repeat(65) });
    expect(big.status).toBe(413);
  });

  it('answers an ignored type with 200 ignored', async () => {
    const { hono } = app();
    const d = createTestDelivery('sms.completed', { secret });
    const res = await hono.request('/webhooks', { method: 'POST', body: d.body, headers: d.headers });
    expect(await res.json()).toEqual({ received: true, ignored: true });
  });
});

describe('route parameters for a secret function (many tenants)', () => {
  const tenants: Record<string, string> = { acme: secret };
  const tenantApp = () => {
    const receiver = createReceiver({
      secret: ({ tenant }) => tenants[tenant],
      logger: captureLogger(),
      respond: 'after-handlers',
    });
    const seen: string[] = [];
    receiver.on('message.delivered', (_event, ctx) => void seen.push(ctx.tenant!));
    return { receiver, seen };
  };

  it("takes Next.js 15's context, whose params is a promise", async () => {
    const { receiver, seen } = tenantApp();
    const POST = webhookHandler(receiver);
    const d = createTestDelivery('message.delivered', { secret });
    const ok = await POST(post(d.body, d.headers), { params: Promise.resolve({ tenant: 'acme' }) });
    expect(ok.status).toBe(200);
    expect(seen).toEqual(['acme']);
    const unknown = await POST(post(d.body, d.headers), { params: Promise.resolve({ tenant: 'initech' }) });
    expect([unknown.status, (await unknown.json()).error.code]).toEqual([404, 'unknown_tenant']);
  });

  it('takes a params function of the request, and refuses one that is not a function at start-up', async () => {
    const { receiver, seen } = tenantApp();
    const handler = webhookHandler(receiver, {
      params: (request) => ({ tenant: new URL(request.url).pathname.split('/')[3] }),
    });
    const d = createTestDelivery('message.delivered', { secret });
    const req = new Request('http://localhost/webhooks/sms/acme', {
      method: 'POST',
      body: d.body,
      headers: d.headers,
    });
    expect((await handler(req)).status).toBe(200);
    expect(seen).toEqual(['acme']);
    expect(() => webhookHandler(receiver, { params: { tenant: 'acme' } as never })).toThrow(
      expect.objectContaining({
        code: 'ERR_SMS_OPTIONS',
        message: expect.stringMatching(/`params` must be a function/),
      }),
    );
  });
});
