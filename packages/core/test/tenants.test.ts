import {
  createReceiver,
  createTestDelivery,
  type DedupeStore,
  type HandlerContext,
  MemoryStore,
  type ReceiverOptions,
  signPayload,
} from '@sms-webhooks/core';
import { VirtualClock } from '@sms-webhooks/core/testing';
import { describe, expect, it } from 'vitest';
import { captureLogger, deferred, secret } from './helpers.js';

const SECRETS: Record<string, string | string[]> = {
  acme: 'whsec_acme0123456789abcdef0123456789ab',
  globex: ['whsec_globexold0123456789abcdef012345', 'whsec_globexnew0123456789abcdef012345'],
};
const secretOf = (tenant: string, index = 0) => [SECRETS[tenant]!].flat()[index]!;

/** A store that counts every call, to show that nothing was written. */
function countingStore(): DedupeStore & { calls: string[] } {
  const store = new MemoryStore();
  const calls: string[] = [];
  return new Proxy(store, {
    get(target, name) {
      if (name === 'calls') return calls;
      const value = Reflect.get(target, name, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(`${String(name)} ${String(args[0])}`);
        return value.apply(target, args);
      };
    },
  }) as unknown as DedupeStore & { calls: string[] };
}

function app(options: Partial<ReceiverOptions> = {}) {
  const logger = captureLogger();
  const lookups: string[] = [];
  const receiver = createReceiver({
    secret: ({ tenant }) => {
      lookups.push(tenant);
      return SECRETS[tenant];
    },
    respond: 'after-handlers',
    logger,
    ...options,
  });
  const seen: { id: string; tenant?: string; secretIndex?: number; key?: string }[] = [];
  receiver.on('message.sent', (event, ctx: HandlerContext) => {
    seen.push({ id: event.id, tenant: ctx.tenant, secretIndex: ctx.secretIndex, key: ctx.claim?.key });
  });
  const send = async (tenant: string, d: { body: string; headers: Record<string, string> }) => {
    const r = await receiver.handle({ rawBody: d.body, headers: d.headers, params: { tenant } });
    return { status: r.status, json: r.json as Record<string, unknown> };
  };
  return { receiver, seen, send, logger, lookups };
}

const errorOf = (r: { json: Record<string, unknown> }) => (r.json.error as { code: string }).code;

describe('secret as a function of the request (many tenants on one route)', () => {
  it('verifies each tenant with its own secret; handlers see ctx.tenant and which secret matched', async () => {
    const { send, seen } = app();
    const a = createTestDelivery('message.sent', { secret: secretOf('acme') });
    const g = createTestDelivery('message.sent', { secret: secretOf('globex', 1) });
    expect(await send('acme', a)).toEqual({ status: 200, json: { received: true } });
    expect(await send('globex', g)).toEqual({ status: 200, json: { received: true } });
    expect(seen).toEqual([
      { id: a.event.id, tenant: 'acme', secretIndex: 0, key: `acme/${a.event.id}` },
      { id: g.event.id, tenant: 'globex', secretIndex: 1, key: `globex/${g.event.id}` },
    ]);
    // acme's secret does not open globex's route.
    const crossed = createTestDelivery('message.sent', { secret: secretOf('acme') });
    const r = await send('globex', crossed);
    expect([r.status, errorOf(r)]).toEqual([400, 'signature_mismatch']);
  });

  it('takes an async function, and a list while one tenant rotates', async () => {
    const receiver = createReceiver({
      secret: async ({ tenant }) => (tenant === 'globex' ? (SECRETS.globex as string[]) : undefined),
      respond: 'after-handlers',
      logger: captureLogger(),
    });
    let index: number | undefined;
    receiver.on('message.sent', (_e, ctx) => {
      index = ctx.secretIndex;
    });
    const d = createTestDelivery('message.sent', { secret: secretOf('globex', 0) });
    expect(
      (await receiver.handle({ rawBody: d.body, headers: d.headers, params: { tenant: 'globex' } })).status,
    ).toBe(200);
    expect(index).toBe(0);
  });

  it('refuses an unknown tenant 404 unknown_tenant before any store call, and runs no handler', async () => {
    const store = countingStore();
    const { send, seen, logger } = app({ store });
    const d = createTestDelivery('message.sent', { secret });
    const r = await send('initech', d);
    expect(r.status).toBe(404);
    expect(errorOf(r)).toBe('unknown_tenant');
    expect(store.calls).toEqual([]);
    expect(seen).toEqual([]);
    expect(logger.lines.join('\n')).not.toContain(secret);
  });

  it('keeps dedupe per tenant: two tenants may send the same event id, and both run', async () => {
    const { send, seen } = app();
    const id = 'evt_same_id_0001';
    const body = createTestDelivery('message.sent', { secret: secretOf('acme'), id });
    const signedFor = (tenant: string) => ({
      body: body.body,
      headers: { ...body.headers, 'x-service-signature': signPayload(body.body, secretOf(tenant)) },
    });
    expect((await send('acme', signedFor('acme'))).json).toEqual({ received: true });
    expect((await send('globex', signedFor('globex'))).json).toEqual({ received: true });
    expect((await send('acme', signedFor('acme'))).json).toEqual({ received: true, duplicate: true });
    expect(seen.map((s) => s.tenant)).toEqual(['acme', 'globex']);
  });

  it('keeps order keys per tenant: one message id at two tenants is two objects', async () => {
    const { receiver, send } = app({ order: true });
    const handled: string[] = [];
    receiver.on('message.delivered', (_e, ctx) => void handled.push(`${ctx.tenant} ${ctx.order?.key}`));
    const data = { id: 'msg_shared', updated_at: '2026-11-26T10:00:20.000Z' } as never;
    const older = { id: 'msg_shared', updated_at: '2026-11-26T10:00:10.000Z' } as never;
    await send('acme', createTestDelivery('message.delivered', { secret: secretOf('acme'), data }));
    // Older than acme's, but globex has no version of msg_shared yet: handled, not stale.
    const g = await send(
      'globex',
      createTestDelivery('message.delivered', { secret: secretOf('globex'), data: older }),
    );
    expect(g.json).toEqual({ received: true });
    expect(handled).toEqual(['acme acme/message:msg_shared', 'globex globex/message:msg_shared']);
  });

  it('gives a dispatched event the claim under the tenant key', async () => {
    const dispatched: { key?: string; tenant?: string }[] = [];
    const receiver = createReceiver({
      secret: ({ tenant }) => SECRETS[tenant],
      dispatch: async ({ ctx, claim }) => void dispatched.push({ key: claim?.key, tenant: ctx.tenant }),
      logger: captureLogger(),
    });
    receiver.on('message.sent', () => {});
    const d = createTestDelivery('message.sent', { secret: secretOf('acme') });
    await receiver.handle({ rawBody: d.body, headers: d.headers, params: { tenant: 'acme' } });
    expect(dispatched).toEqual([{ key: `acme/${d.event.id}`, tenant: 'acme' }]);
  });

  it('never looks a tenant up for a malformed, unsigned or replayed request', async () => {
    const { send, lookups } = app();
    const d = createTestDelivery('message.sent', { secret: secretOf('acme'), timestamp: 1_000_000_000 });
    expect(errorOf(await send('acme', d))).toBe('timestamp_out_of_tolerance');
    expect(errorOf(await send('acme', { body: d.body, headers: {} }))).toBe('signature_missing');
    expect(lookups).toEqual([]);
  });

  it('names the tenant by a header or the path with `tenant`; the `secret` function sees the tenant alone', async () => {
    const requests: unknown[] = [];
    const receiver = createReceiver({
      secret: (request) => {
        requests.push(request);
        return SECRETS[request.tenant];
      },
      tenant: ({ headers }) => (headers as Record<string, string>)['x-tenant'],
      respond: 'after-handlers',
      logger: captureLogger(),
    });
    receiver.on('message.sent', () => {});
    const d = createTestDelivery('message.sent', { secret: secretOf('acme') });
    const headers = { ...d.headers, 'x-tenant': 'acme' };
    const r = await receiver.handle({ rawBody: d.body, headers, params: { id: '7' }, url: '/hooks/7?x=1' });
    expect(r.status).toBe(200);
    expect(requests).toEqual([{ tenant: 'acme' }]);
    const paths: unknown[] = [];
    const byPath = createReceiver({
      secret: ({ tenant }) => SECRETS[tenant],
      tenant: ({ path, params }) => {
        paths.push([path, params]);
        return path?.split('/')[2];
      },
      logger: captureLogger(),
    });
    byPath.on('message.sent', () => {});
    const answer = await byPath.handle({
      rawBody: d.body,
      headers,
      params: { id: '7' },
      url: '/hooks/acme?x=1',
    });
    expect(answer.status).toBe(200);
    expect(paths).toEqual([['/hooks/acme', { id: '7' }]]);
  });

  it('answers a request without the route parameter 404 and says once how to pass it', async () => {
    const { receiver, logger } = app();
    const d = createTestDelivery('message.sent', { secret: secretOf('acme') });
    for (let i = 0; i < 2; i++) {
      const r = await receiver.handle({ rawBody: d.body, headers: d.headers, params: { id: 'acme' } });
      expect(r.status).toBe(404);
    }
    const hints = logger.lines.filter((l) => l.includes('no route parameter `tenant`'));
    expect(hints).toHaveLength(1);
    expect(hints[0]).toContain('its parameters: id');
  });

  it('answers 503 secret_unavailable with Retry-After when the function fails, and looks again 2 s later', async () => {
    let down = true;
    let calls = 0;
    const logger = captureLogger();
    const clock = new VirtualClock();
    const receiver = createReceiver({
      secret: async ({ tenant }) => {
        calls++;
        if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        return SECRETS[tenant];
      },
      respond: 'after-handlers',
      logger,
      clock,
    });
    receiver.on('message.sent', () => {});
    const d = createTestDelivery('message.sent', {
      secret: secretOf('acme'),
      timestamp: Math.floor(clock.now() / 1000),
    });
    const first = await receiver.handle({ rawBody: d.body, headers: d.headers, params: { tenant: 'acme' } });
    expect([first.status, (first.json as { error: { code: string } }).error.code]).toEqual([
      503,
      'secret_unavailable',
    ]);
    expect(first.headers['retry-after']).toBe('30');
    expect(logger.lines.some((l) => l.includes('ECONNREFUSED'))).toBe(true);
    down = false;
    // The failure is remembered for 2 s: a delivery meanwhile is 503 without a call.
    const again = await receiver.handle({ rawBody: d.body, headers: d.headers, params: { tenant: 'acme' } });
    expect([again.status, calls]).toEqual([503, 1]);
    await clock.advance(2000);
    const second = await receiver.handle({ rawBody: d.body, headers: d.headers, params: { tenant: 'acme' } });
    expect([second.status, calls]).toEqual([200, 2]);
  });

  it('answers 503 when the function returns something that is not a secret, naming the problem, not the value', async () => {
    const logger = captureLogger();
    const receiver = createReceiver({ secret: () => ' whsec_padded ', logger });
    const d = createTestDelivery('message.sent', { secret });
    const r = await receiver.handle({ rawBody: d.body, headers: d.headers, params: { tenant: 'acme' } });
    expect(r.status).toBe(503);
    const line = logger.lines.find((l) => l.includes('secret_unavailable'));
    expect(line).toMatch(/leading or trailing whitespace/);
    expect(line).not.toContain('whsec_padded');
  });
});

describe('secretCache', () => {
  const deliver = (receiver: ReturnType<typeof app>['receiver'], tenant: string, clock?: VirtualClock) => {
    const timestamp = clock ? Math.floor(clock.now() / 1000) : undefined;
    const d = createTestDelivery('message.sent', {
      secret: tenant in SECRETS ? secretOf(tenant) : secret,
      timestamp,
    });
    return receiver.handle({ rawBody: d.body, headers: d.headers, params: { tenant } });
  };

  it('looks a tenant up once per ttlMs, unknown tenants included, and again after it', async () => {
    const clock = new VirtualClock();
    const { receiver, lookups } = app({ clock, secretCache: { ttlMs: 1000 } });
    await deliver(receiver, 'acme', clock);
    await deliver(receiver, 'acme', clock);
    await deliver(receiver, 'nobody', clock);
    await deliver(receiver, 'nobody', clock);
    expect(lookups).toEqual(['acme', 'nobody']);
    await clock.advance(1000);
    await deliver(receiver, 'acme', clock);
    expect(lookups).toEqual(['acme', 'nobody', 'acme']);
  });

  it('keeps at most `max` tenants, dropping the least recently used; unknown ones apart', async () => {
    const { receiver, lookups } = app({ secretCache: { max: 1 } });
    for (const tenant of ['acme', 'globex', 'acme', 'initech', 'nobody', 'acme', 'initech'])
      await deliver(receiver, tenant);
    // globex pushed out acme; the unknown tenants push out each other, never a known one.
    expect(lookups).toEqual(['acme', 'globex', 'acme', 'initech', 'nobody', 'initech']);
  });

  it('is off with `false`: every delivery looks its tenant up', async () => {
    const { receiver, lookups } = app({ secretCache: false });
    await deliver(receiver, 'acme');
    await deliver(receiver, 'acme');
    expect(lookups).toEqual(['acme', 'acme']);
  });

  it('shares one lookup between deliveries of a tenant that arrive together', async () => {
    const gate = deferred();
    let calls = 0;
    const receiver = createReceiver({
      secret: async ({ tenant }) => {
        calls++;
        await gate.promise;
        return SECRETS[tenant];
      },
      logger: captureLogger(),
    });
    receiver.on('message.sent', () => {});
    const both = Promise.all([deliver(receiver, 'acme'), deliver(receiver, 'acme')]);
    await new Promise((r) => setTimeout(r, 0));
    gate.resolve();
    expect((await both).map((r) => r.status)).toEqual([200, 200]);
    expect(calls).toBe(1);
  });
});

describe('start-up checks', () => {
  const lookup = (): string => secret;
  const make = (options: Record<string, unknown>) => () =>
    createReceiver({ logger: captureLogger(), ...options } as unknown as ReceiverOptions);

  it.each([
    [{ secret: 42 }, /`secret` is required: pass the webhook secret/],
    [{ secret: { acme: 'whsec_x' } }, /or a function of the request .*got an object/],
    [{ secret, tenant: 'tenant' }, /`tenant` works with `secret` as a function of the request/],
    [{ secret, secretCache: false }, /`secretCache` works with `secret` as a function/],
    [{ secret: lookup, tenant: 3 }, /`tenant` must be the name of the route parameter .*got 3/],
    [
      { secret: lookup, secretCache: true },
      /`secretCache` must be \{ max, ttlMs \} .*or false.*got the boolean true/,
    ],
    [{ secret: lookup, secretCache: { max: 0 } }, /`secretCache.max` must be a positive integer of tenants/],
    [
      { secret: lookup, secretCache: { ttlMs: '60s' } },
      /`secretCache.ttlMs` must be a positive integer.*got the string "60s"/,
    ],
    [{ secret: lookup, secretCache: { size: 10 } }, /`secretCache` has an unknown option `size`/],
  ])('refuses %o with ERR_SMS_OPTIONS and a fix', (options, message) => {
    expect(make(options)).toThrow(message);
    expect(make(options)).toThrow(expect.objectContaining({ code: 'ERR_SMS_OPTIONS' }));
  });

  it('refuses many tenants with a hand-off that names jobs by event id; takes a dispatch of your own', () => {
    const byEventId = Object.assign(async () => {}, { keyedByEventId: true });
    expect(make({ secret: lookup, dispatch: byEventId })).toThrow(
      expect.objectContaining({
        code: 'ERR_SMS_OPTIONS',
        message: expect.stringMatching(/name a job by its event id alone.*claim\.key/),
      }),
    );
    expect(make({ secret, dispatch: byEventId })).not.toThrow();
    expect(make({ secret: lookup, dispatch: async () => {} })).not.toThrow();
  });

  it('takes a plain secret, a list and a function', () => {
    for (const s of [secret, [secret], lookup]) expect(make({ secret: s })).not.toThrow();
  });
});
