import {
  createReceiver,
  createTestDelivery,
  type DedupeStore,
  MemoryStore,
  signPayload,
  type WebhookHandlerError,
} from '@sms-webhooks/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { brokenStore, captureLogger, deferred, secret } from './helpers.js';

const json = (r: { body: string }) => JSON.parse(r.body);
const deliver = (type: Parameters<typeof createTestDelivery>[0] = 'message.delivered', extra = {}) =>
  createTestDelivery(type, { secret, ...extra });
const quiet = () => captureLogger();

describe('createReceiver options', () => {
  it.each([
    [{}, /`secret` is required/],
    [{ secret: '' }, /`secret` is empty/],
    [{ secret: [] }, /`secret` is required/],
    [{ secret: ['whsec_a', ''] }, /`secret\[1\]` is empty/],
    [{ secret: 'whsec_a\n' }, /whitespace.*Trim it/],
    [{ secret: ' whsec_a' }, /whitespace/],
    [{ secret: 'whsec_a', tolerance: 0 }, /`tolerance` must be a positive number/],
    [{ secret: 'whsec_a', tolerance: -5 }, /`tolerance`/],
    [{ secret: 'whsec_a', tolerance: Number.NaN }, /`tolerance`/],
    [{ secret: 'whsec_a', respond: 'later' }, /`respond` must be 'immediately' or 'after-handlers'/],
    [{ secret: 'whsec_a', onStoreError: 'ignore' }, /`onStoreError`/],
    [{ secret: 'whsec_a', leaseMs: 1.5 }, /`leaseMs` must be a positive integer/],
    [{ secret: 'whsec_a', maxBodyBytes: 0 }, /`maxBodyBytes`/],
    [{ secret: 'whsec_a', store: {} }, /`store` must implement claim, complete and release/],
    [{ secret: 'whsec_a', headerPrefix: 'x service' }, /`headerPrefix`/],
    [{ secret: 'whsec_a', logger: {} }, /`logger` must have warn\(\) and error\(\)/],
    [{ secret: 'whsec_a', tolerence: 300 }, /unknown option `tolerence`/],
  ])('refuses %j at start-up with a TypeError saying what to fix', (options, message) => {
    expect(() => createReceiver(options as never)).toThrow(TypeError);
    expect(() => createReceiver(options as never)).toThrow(message);
  });

  it('never repeats the secret in an option error', () => {
    expect(() => createReceiver({ secret: 'whsec_topsecret ' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('topsecret') }),
    );
  });

  it('warns once at start-up when a per-process store is used in production', () => {
    const before = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      const logger = captureLogger();
      createReceiver({ secret, logger });
      expect(logger.lines).toHaveLength(1);
      expect(logger.lines[0]).toMatch(/MemoryStore.*RedisStore/s);
      const quietLogger = captureLogger();
      createReceiver({ secret, logger: quietLogger, store: { ...brokenStore(), localKeys: false } });
      expect(quietLogger.lines).toHaveLength(0);
    } finally {
      process.env.NODE_ENV = before;
    }
  });
});

describe('receiver.handle', () => {
  afterEach(() => vi.useRealTimers());

  it('verifies, answers 200 at once and runs the typed handler in the background with ctx', async () => {
    const r = createReceiver({ secret, logger: quiet() });
    const seen = deferred<{ to: string; attempt?: number; id: string }>();
    r.on('message.failed', (event, ctx) =>
      seen.resolve({ to: event.data.to, attempt: ctx.attempt, id: event.id }),
    );
    const d = deliver('message.failed', { attempt: 2 });
    const res = await r.handle({ rawBody: Buffer.from(d.body), headers: d.headers });
    expect(res.status).toBe(200);
    expect(json(res)).toEqual({ received: true });
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(await seen.promise).toEqual({ to: d.event.data.to, attempt: 2, id: d.event.id });
  });

  it('answers before a slow handler finishes (respond: immediately)', async () => {
    const r = createReceiver({ secret, logger: quiet() });
    const gate = deferred();
    let finished = false;
    r.on('message.sent', async () => {
      await gate.promise;
      finished = true;
    });
    const d = deliver('message.sent');
    const res = await r.handle({ rawBody: d.body, headers: d.headers });
    expect(res.status).toBe(200);
    expect(finished).toBe(false);
    gate.resolve();
    await r.drain();
    expect(finished).toBe(true);
  });

  it('answers before even a synchronous handler runs', async () => {
    const r = createReceiver({ secret, logger: quiet() });
    let ran = false;
    r.on('message.sent', () => {
      ran = true;
    });
    const d = deliver('message.sent');
    await r.handle({ rawBody: d.body, headers: d.headers });
    expect(ran).toBe(false);
    await r.drain();
    expect(ran).toBe(true);
  });

  it('after-handlers: 200 when handlers succeed, 500 handler_failed when one fails', async () => {
    const logger = quiet();
    const r = createReceiver({ secret, respond: 'after-handlers', logger });
    let fail = true;
    const calls: string[] = [];
    r.on('message.delivered', async (e) => {
      calls.push(e.id);
      if (fail) throw new Error('database down');
    });
    const d = deliver();
    const first = await r.handle({ rawBody: d.body, headers: d.headers });
    expect(first.status).toBe(500);
    expect(json(first).error.code).toBe('handler_failed');
    expect(first.body).not.toContain('database down');
    fail = false;
    const retry = await r.handle({ rawBody: d.body, headers: d.headers });
    expect(retry.status).toBe(200);
    expect(json(retry)).toEqual({ received: true });
    expect(calls).toEqual([d.event.id, d.event.id]);
    expect(logger.text()).toContain('database down');
  });

  it('processes an event once: a redelivery answers 200 duplicate without calling handlers', async () => {
    const r = createReceiver({ secret, respond: 'after-handlers', logger: quiet() });
    const handler = vi.fn();
    r.on('message.delivered', handler);
    const d = deliver();
    await r.handle({ rawBody: d.body, headers: d.headers });
    const again = deliver('message.delivered', { id: d.event.id, attempt: 2 });
    const res = await r.handle({ rawBody: again.body, headers: again.headers });
    expect(res.status).toBe(200);
    expect(json(res)).toEqual({ received: true, duplicate: true });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('answers 409 in_flight with Retry-After while the same event is being processed', async () => {
    const r = createReceiver({ secret, respond: 'after-handlers', logger: quiet() });
    const gate = deferred();
    const handler = vi.fn(() => gate.promise);
    r.on('message.delivered', handler);
    const d = deliver();
    const first = r.handle({ rawBody: d.body, headers: d.headers });
    await vi.waitFor(() => expect(handler).toHaveBeenCalledTimes(1));
    const second = await r.handle({ rawBody: d.body, headers: d.headers });
    expect(second.status).toBe(409);
    expect(json(second).error.code).toBe('in_flight');
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
    gate.resolve();
    expect((await first).status).toBe(200);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('ignores types with no handler without touching the store', async () => {
    const claims: string[] = [];
    const store: DedupeStore = Object.assign(new MemoryStore(), {});
    const original = store.claim.bind(store);
    store.claim = (k, t, l) => {
      claims.push(k);
      return original(k, t, l);
    };
    const r = createReceiver({ secret, store, logger: quiet() });
    r.on('message.delivered', () => {});
    const d = deliver('message.replied');
    const res = await r.handle({ rawBody: d.body, headers: d.headers });
    expect(json(res)).toEqual({ received: true, ignored: true });
    expect(claims).toEqual([]);
  });

  it('ignores an unknown future type, unless onAny is registered', async () => {
    const body = JSON.stringify({
      id: 'evt_future1',
      object: 'event',
      type: 'message.recalled',
      api_version: 'v2',
      created_at: new Date().toISOString(),
      test: false,
      data: { id: 'msg_1' },
    });
    const headers = { 'x-service-signature': signPayload(body, secret) };
    const r = createReceiver({ secret, respond: 'after-handlers', logger: quiet() });
    expect(json(await r.handle({ rawBody: body, headers }))).toEqual({ received: true, ignored: true });
    const any = vi.fn();
    r.onAny(any);
    expect(json(await r.handle({ rawBody: body, headers }))).toEqual({ received: true });
    expect(any).toHaveBeenCalledWith(
      expect.objectContaining({ type: 'message.recalled' }),
      expect.anything(),
    );
  });

  it('runs every handler for a type concurrently and reports all failures in one AggregateError', async () => {
    const onError = deferred<WebhookHandlerError>();
    const r = createReceiver({ secret, respond: 'after-handlers', logger: quiet() });
    const order: string[] = [];
    const gate = deferred();
    r.on('message.delivered', async () => {
      order.push('a-start');
      await gate.promise;
      throw new Error('a failed');
    });
    r.on(['message.delivered', 'message.sent'], async () => {
      order.push('b-start');
      gate.resolve();
      throw new Error('b failed');
    });
    r.onAny(() => {
      order.push('any');
    });
    r.onError((e) => onError.resolve(e));
    const d = deliver();
    const res = await r.handle({ rawBody: d.body, headers: d.headers });
    expect(res.status).toBe(500);
    expect(order).toEqual(['a-start', 'b-start', 'any']);
    const error = await onError.promise;
    expect(error).toBeInstanceOf(AggregateError);
    expect(error.code).toBe('handler_failed');
    expect(error.event.id).toBe(d.event.id);
    expect(error.errors.map((e) => (e as Error).message)).toEqual(['a failed', 'b failed']);
  });

  // A stack is not a secret: without it a handler's TypeError says neither file nor line.
  it('logs a handler failure with its stack when there is no onError hook', async () => {
    const logger = quiet();
    const r = createReceiver({ secret, logger, respond: 'after-handlers', retry: false });
    r.on('message.delivered', (event) => {
      (event.data as unknown as { missing: { id: string } }).missing.id;
    });
    const d = deliver();
    expect((await r.handle({ rawBody: d.body, headers: d.headers })).status).toBe(500);
    const [line] = logger.lines.filter((l) => l.includes('handler failed'));
    expect(line).toMatch(/^error sms-webhooks: 1 handler failed for message\.delivered evt_\w+: /);
    expect(line).toContain('\nTypeError: Cannot read properties of undefined');
    expect(line).toMatch(/\n {4}at .*receiver\.test\.ts:\d+:\d+/);
  });

  it('logs an onError hook that throws with its stack', async () => {
    const logger = quiet();
    const r = createReceiver({ secret, logger, respond: 'after-handlers', retry: false });
    r.on('message.delivered', () => {
      throw new Error('boom');
    });
    r.onError(() => {
      throw new RangeError('hook threw');
    });
    const d = deliver();
    await r.handle({ rawBody: d.body, headers: d.headers });
    await new Promise((resolve) => setImmediate(resolve));
    expect(logger.text()).toMatch(
      /an onError hook failed: RangeError: hook threw\n {4}at .*receiver\.test\.ts:\d+/,
    );
  });

  it('keeps working when an onError hook throws or rejects', async () => {
    const logger = quiet();
    const r = createReceiver({ secret, logger });
    r.on('message.sent', () => {
      throw new Error('boom');
    });
    r.onError(() => {
      throw new Error('hook threw');
    });
    r.onError(async () => {
      throw new Error('hook rejected');
    });
    const d = deliver('message.sent');
    expect((await r.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    await r.drain();
    await new Promise((resolve) => setImmediate(resolve));
    expect(logger.text()).toContain('hook threw');
    expect(logger.text()).toContain('hook rejected');
    const d2 = deliver('message.sent');
    expect((await r.handle({ rawBody: d2.body, headers: d2.headers })).status).toBe(200);
  });

  it('survives a logger that throws while a background handler failure is reported', async () => {
    const store = new MemoryStore();
    const throwing = {
      warn() {},
      error() {
        throw new Error('logger down');
      },
    };
    const r = createReceiver({ secret, store, logger: throwing });
    r.on('message.sent', () => {
      throw new Error('boom');
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const d = deliver('message.sent');
      expect((await r.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
      expect(await r.drain(1000)).toEqual({ unfinished: [] });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
      // The failure was still recorded: the claim is released, so a redelivery can run it again.
      expect(await store.claim(d.event.id, 'another', 1000)).toBe('claimed');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('releases the claim when handlers fail in the background (retry off), so a redelivery runs them again', async () => {
    const r = createReceiver({ secret, retry: false, logger: quiet() });
    let calls = 0;
    r.on('message.sent', () => {
      calls++;
      if (calls === 1) throw new Error('first time');
    });
    const d = deliver('message.sent');
    await r.handle({ rawBody: d.body, headers: d.headers });
    await r.drain();
    expect(json(await r.handle({ rawBody: d.body, headers: d.headers }))).toEqual({ received: true });
    await r.drain();
    expect(calls).toBe(2);
    expect(json(await r.handle({ rawBody: d.body, headers: d.headers }))).toEqual({
      received: true,
      duplicate: true,
    });
  });

  it('off() removes a handler, onAny ones with "*"', async () => {
    const r = createReceiver({ secret, respond: 'after-handlers', logger: quiet() });
    const h = vi.fn();
    const any = vi.fn();
    r.on('message.sent', h).onAny(any);
    r.off('message.sent', h).off('*', any);
    const d = deliver('message.sent');
    expect(json(await r.handle({ rawBody: d.body, headers: d.headers }))).toEqual({
      received: true,
      ignored: true,
    });
    expect(h).not.toHaveBeenCalled();
  });

  it.each([false, true])(
    'a delivery runs the handlers registered when it was routed, whatever on() and off() do before they start (onAny: %s)',
    async (withAny) => {
      const r = createReceiver({ secret, logger: quiet() });
      const first = vi.fn();
      const any = vi.fn();
      const later = vi.fn();
      r.on('message.sent', first);
      if (withAny) r.onAny(any);
      const d = deliver('message.sent');
      // 'immediately': answered now, the handlers start on a later turn.
      expect((await r.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
      r.off('message.sent', first).off('*', any).on('message.sent', later);
      await r.drain();
      expect(first).toHaveBeenCalledTimes(1);
      expect(any).toHaveBeenCalledTimes(withAny ? 1 : 0);
      expect(later).not.toHaveBeenCalled();
      // The next delivery runs what is registered now.
      const next = deliver('message.sent');
      expect((await r.handle({ rawBody: next.body, headers: next.headers })).status).toBe(200);
      await r.drain();
      expect(later).toHaveBeenCalledTimes(1);
      expect(first).toHaveBeenCalledTimes(1);
    },
  );

  it.each([undefined, null])(
    'answers headers: %s with 400 signature_missing instead of rejecting',
    async (headers) => {
      const r = createReceiver({ secret, respond: 'after-handlers', logger: quiet() });
      const handler = vi.fn();
      r.on('message.delivered', handler);
      const res = await r.handle({ rawBody: deliver().body, headers: headers as never });
      expect([res.status, json(res).error.code]).toEqual([400, 'signature_missing']);
      expect(handler).not.toHaveBeenCalled();
    },
  );

  it.each([
    [
      'missing',
      (h: Record<string, string>) => ({ ...h, 'x-service-signature': '' }),
      400,
      'signature_missing',
    ],
    [
      'malformed',
      (h: Record<string, string>) => ({ ...h, 'x-service-signature': 't=abc,v1=zz' }),
      400,
      'signature_malformed',
    ],
    [
      'mismatched',
      (h: Record<string, string>) => ({
        ...h,
        // Flip the first hex digit (replacing it with a fixed '0' left 1 in 16 signatures unchanged).
        'x-service-signature': h['x-service-signature']!.replace(/v1=(.)/, (_m, c: string) =>
          c === '0' ? 'v1=1' : 'v1=0',
        ),
      }),
      400,
      'signature_mismatch',
    ],
    [
      'event id header differs',
      (h: Record<string, string>) => ({ ...h, 'x-service-event-id': 'evt_other' }),
      400,
      'header_mismatch',
    ],
  ])(
    'answers a %s signature or header with its code, never calling a handler',
    async (_n, edit, status, code) => {
      const logger = quiet();
      const r = createReceiver({ secret, respond: 'after-handlers', logger });
      const handler = vi.fn();
      r.on('message.delivered', handler);
      const d = deliver();
      const res = await r.handle({ rawBody: d.body, headers: edit(d.headers) });
      expect(res.status).toBe(status);
      expect(json(res).error.code).toBe(code);
      expect(typeof json(res).error.message).toBe('string');
      expect(handler).not.toHaveBeenCalled();
      expect(`${res.body}\n${logger.text()}`).not.toContain(secret);
    },
  );

  it('refuses stale and future timestamps with timestamp_out_of_tolerance', async () => {
    const r = createReceiver({ secret, logger: quiet() });
    r.on('message.delivered', () => {});
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [now - 301, now + 301]) {
      const d = deliver('message.delivered', { timestamp });
      const res = await r.handle({ rawBody: d.body, headers: d.headers });
      expect(res.status).toBe(400);
      expect(json(res).error.code).toBe('timestamp_out_of_tolerance');
    }
  });

  it('accepts every secret of a rotation', async () => {
    const r = createReceiver({
      secret: [secret, 'whsec_previous'],
      respond: 'after-handlers',
      logger: quiet(),
    });
    r.on('message.delivered', () => {});
    const d = createTestDelivery('message.delivered', { secret: 'whsec_previous' });
    expect((await r.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
  });

  it('answers 500 raw_body_unavailable with a hint in the log when handed a parsed body', async () => {
    const logger = quiet();
    const r = createReceiver({ secret, logger });
    const d = deliver();
    const res = await r.handle({ rawBody: JSON.parse(d.body), headers: d.headers });
    expect(res.status).toBe(500);
    expect(json(res).error.code).toBe('raw_body_unavailable');
    expect(logger.text()).toMatch(/exactly as received/);
  });

  it('answers 413 payload_too_large for a body over maxBodyBytes', async () => {
    const r = createReceiver({ secret, maxBodyBytes: 100, logger: quiet() });
    const d = deliver();
    const res = await r.handle({ rawBody: d.body, headers: d.headers });
    expect(res.status).toBe(413);
    expect(json(res).error.code).toBe('payload_too_large');
  });

  it('store down, default: 503 store_unavailable with Retry-After, no handler', async () => {
    const logger = quiet();
    const r = createReceiver({ secret, store: brokenStore(), logger });
    const handler = vi.fn();
    r.on('message.delivered', handler);
    const d = deliver();
    const res = await r.handle({ rawBody: d.body, headers: d.headers });
    expect(res.status).toBe(503);
    expect(json(res).error.code).toBe('store_unavailable');
    expect(res.headers['retry-after']).toBeDefined();
    await r.drain();
    expect(handler).not.toHaveBeenCalled();
    expect(logger.text()).toContain('ECONNREFUSED');
  });

  it("store down, onStoreError 'process': runs the handler without dedupe and warns", async () => {
    const logger = quiet();
    const r = createReceiver({
      secret,
      store: brokenStore(),
      onStoreError: 'process',
      respond: 'after-handlers',
      logger,
    });
    const handler = vi.fn();
    r.on('message.delivered', handler);
    const d = deliver();
    expect((await r.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(logger.text()).toMatch(/warn .*without dedupe/);
  });

  it('calls store.init once before the first claim, and again after a failed init', async () => {
    let inits = 0;
    const store = new MemoryStore() as MemoryStore & { init(): Promise<void> };
    store.init = async () => {
      inits++;
      if (inits === 1) throw new Error('not yet');
    };
    const r = createReceiver({ secret, store, respond: 'after-handlers', logger: quiet() });
    r.on('message.delivered', () => {});
    const first = deliver();
    expect((await r.handle({ rawBody: first.body, headers: first.headers })).status).toBe(503);
    for (let i = 0; i < 3; i++) {
      const d = deliver();
      expect((await r.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    }
    expect(inits).toBe(2);
  });
});

describe('receiver.drain', () => {
  it('waits for every background handler, including ones that start while draining', async () => {
    const r = createReceiver({ secret, logger: quiet() });
    const done: string[] = [];
    r.on('message.sent', async (e) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      done.push(e.id);
    });
    const ds = Array.from({ length: 20 }, () => deliver('message.sent'));
    await Promise.all(ds.map((d) => r.handle({ rawBody: d.body, headers: d.headers })));
    const draining = r.drain();
    const late = deliver('message.sent');
    await r.handle({ rawBody: late.body, headers: late.headers });
    expect(await draining).toEqual({ unfinished: [] });
    expect(done).toHaveLength(21);
  });

  it('with a time-out, reports unfinished handlers by event id', async () => {
    const logger = quiet();
    const r = createReceiver({ secret, logger });
    const gate = deferred();
    r.on('message.sent', async (e) => {
      if (e.data.to === '+1000') await gate.promise;
    });
    const stuck = deliver('message.sent', { data: { to: '+1000' } });
    const quick = deliver('message.sent');
    await r.handle({ rawBody: stuck.body, headers: stuck.headers });
    await r.handle({ rawBody: quick.body, headers: quick.headers });
    const result = await r.drain(50);
    expect(result.unfinished).toEqual([stuck.event.id]);
    expect(logger.text()).toContain(stuck.event.id);
    gate.resolve();
    expect(await r.drain()).toEqual({ unfinished: [] });
  });

  it('close() drains, then shuts the store down', async () => {
    const calls: string[] = [];
    const store = Object.assign(new MemoryStore(), { shutdown: async () => void calls.push('shutdown') });
    const r = createReceiver({ secret, store, logger: quiet() });
    r.on('message.sent', async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      calls.push('handler');
    });
    const d = deliver('message.sent');
    await r.handle({ rawBody: d.body, headers: d.headers });
    await r.close();
    expect(calls).toEqual(['handler', 'shutdown']);
  });
});

describe('detached methods', () => {
  it('handle, on and drain work without their receiver (passed as callbacks)', async () => {
    const receiver = createReceiver({ secret: 'whsec_detached0123456789', respond: 'after-handlers' });
    const { on, handle, drain } = receiver;
    const seen: string[] = [];
    on('message.sent', (event) => void seen.push(event.id));
    const d = createTestDelivery('message.sent', { secret: 'whsec_detached0123456789' });
    expect((await handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    await drain();
    expect(seen).toEqual([d.event.id]);
  });
});
