import { createReceiver, createTestDelivery, type ReceiverOptions } from '@sms-webhooks/core';
import { VirtualClock } from '@sms-webhooks/core/testing';
import { describe, expect, it } from 'vitest';
import { captureLogger, deferred } from './helpers.js';

// Issue 45, findings 3 to 5: what an unsigned caller and a hung lookup can do to a `secret` function.

const LIVE = 'whsec_acmelive0123456789abcdef01234567';
const TEST = 'whsec_acmetest0123456789abcdef01234567';
const SECRETS: Record<string, string> = { acme: LIVE, 'acme:live': LIVE, 'acme:test': TEST };

function app(options: Partial<ReceiverOptions> & Pick<ReceiverOptions, 'secret'>) {
  const logger = captureLogger();
  const clock = new VirtualClock();
  const receiver = createReceiver({ respond: 'after-handlers', logger, clock, ...options });
  receiver.on('message.sent', () => {});
  const send = async (
    params: Record<string, string>,
    signedWith: string,
    headers?: Record<string, string>,
  ) => {
    const d = createTestDelivery('message.sent', {
      secret: signedWith,
      timestamp: Math.floor(clock.now() / 1000),
    });
    const r = await receiver.handle({ rawBody: d.body, headers: { ...d.headers, ...headers }, params });
    return {
      status: r.status,
      headers: r.headers,
      code: (r.json as { error?: { code: string } }).error?.code,
    };
  };
  return { receiver, clock, logger, send };
}

/** A C0 control character or DEL: what a terminal would act on. */
const hasControl = (line: string) =>
  [...line].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

/** Whether `p` has settled once every ready promise chain has run. */
async function settled<T>(p: Promise<T>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('a lookup that never settles (finding 3)', () => {
  it.each([
    ['with the cache', {}],
    ['with secretCache: false', { secretCache: false as const }],
  ])(
    'answers 503 secret_unavailable with Retry-After after 5 s (the default), %s, and asks again later',
    async (_name, extra) => {
      let calls = 0;
      const answers = [new Promise<string>(() => {}), Promise.resolve(LIVE)];
      const { clock, send } = app({ secret: () => answers[calls++]!, ...extra });

      const first = send({ tenant: 'acme' }, LIVE);
      await clock.advance(4999);
      expect(await settled(first)).toBe(false);
      // A delivery arriving meanwhile joins the pending call, and is answered with it.
      const joined = send({ tenant: 'acme' }, LIVE);
      await clock.advance(1);
      expect(await settled(first)).toBe(true);
      const r = await first;
      expect([r.status, r.code]).toEqual([503, 'secret_unavailable']);
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      expect((await joined).code).toBe('secret_unavailable');
      expect(calls).toBe(1);

      // The hung call is dropped: once the failure is no longer remembered, the next delivery asks again.
      await clock.advance(5000);
      const next = send({ tenant: 'acme' }, LIVE);
      await clock.advance(0);
      expect((await next).status).toBe(200);
      expect(calls).toBe(2);
    },
  );

  it('takes secretTimeoutMs, and a late answer of a dropped call is neither used nor cached', async () => {
    let calls = 0;
    const late = deferred<string>();
    const answers = [late.promise, Promise.resolve(LIVE)];
    const { clock, send } = app({ secret: () => answers[calls++]!, secretTimeoutMs: 100 });
    const first = send({ tenant: 'acme' }, LIVE);
    await clock.advance(100);
    expect((await first).code).toBe('secret_unavailable');
    await clock.advance(10_000);
    expect((await send({ tenant: 'acme' }, LIVE)).status).toBe(200);
    // The first call answers at last, with another secret: the one the second call cached stays.
    late.resolve(TEST);
    await new Promise((r) => setImmediate(r));
    expect((await send({ tenant: 'acme' }, LIVE)).status).toBe(200);
    expect((await send({ tenant: 'acme' }, TEST)).code).toBe('signature_mismatch');
    expect(calls).toBe(2);
  });

  it('answers 503 when the `tenant` function returns a promise (it must name the tenant at once)', async () => {
    const { send, logger } = app({
      secret: ({ tenant }) => SECRETS[tenant],
      tenant: (async () => 'acme') as never,
    });
    const r = await send({}, LIVE);
    expect([r.status, r.code]).toEqual([503, 'secret_unavailable']);
    expect(logger.lines.join('\n')).toMatch(/`tenant` function returned a promise/);
  });

  it.each([
    [{ secretTimeoutMs: 0 }, /`secretTimeoutMs` must be a positive integer of milliseconds/],
    [{ secretTimeoutMs: '5s' }, /`secretTimeoutMs` must be a positive integer.*got the string "5s"/],
    [{ secretTimeoutMs: false }, /`secretTimeoutMs` must be a positive integer.*cannot be turned off/],
    [{ secret: LIVE, secretTimeoutMs: 1000 }, /`secretTimeoutMs` works with `secret` as a function/],
  ])('refuses %o at start-up with ERR_SMS_OPTIONS', (options, message) => {
    const make = () =>
      createReceiver({
        secret: () => LIVE,
        logger: captureLogger(),
        ...options,
      } as unknown as ReceiverOptions);
    expect(make).toThrow(message);
    expect(make).toThrow(expect.objectContaining({ code: 'ERR_SMS_OPTIONS' }));
  });
});

describe('what chooses the secret is what the cache keys on (finding 4)', () => {
  it('an unsigned request to the test route never changes the secret the live route is checked against', async () => {
    const seen: unknown[] = [];
    // The shape the README once suggested: the secret chosen by the tenant and a route parameter.
    const { send } = app({
      secret: (request) => {
        seen.push(Object.keys(request));
        return (request as { params?: { mode?: string } }).params?.mode === 'test' ? TEST : LIVE;
      },
    });
    const unsigned = await send({ tenant: 'acme', mode: 'test' }, 'whsec_attacker0123456789abcdef0123456');
    expect(unsigned.status).toBeGreaterThanOrEqual(400);
    const live = await send({ tenant: 'acme', mode: 'live' }, LIVE);
    const testOnLive = await send({ tenant: 'acme', mode: 'live' }, TEST);
    expect(live.code).not.toBe('signature_mismatch');
    expect(testOnLive.status).not.toBe(200);
    // The function sees only what the cache keys on.
    expect(seen.every((keys) => JSON.stringify(keys) === '["tenant"]')).toBe(true);
  });

  it('a function that reads params is told to name the secret in `tenant`', async () => {
    const { send, logger } = app({
      secret: (request) =>
        (request as { params?: { mode?: string } }).params!.mode === 'test' ? TEST : LIVE,
    });
    expect((await send({ tenant: 'acme', mode: 'live' }, LIVE)).code).toBe('secret_unavailable');
    expect(logger.lines.join('\n')).toMatch(/gets only \{ tenant \}.*`tenant`/);
  });

  it('composite names in `tenant`: live and test routes keep their own secrets, whatever comes first', async () => {
    const { send } = app({
      secret: ({ tenant }) => SECRETS[tenant],
      tenant: ({ params }) => `${params.tenant}:${params.mode}`,
    });
    expect((await send({ tenant: 'acme', mode: 'test' }, 'whsec_attacker0123456789abcdef0123456')).code).toBe(
      'signature_mismatch',
    );
    expect((await send({ tenant: 'acme', mode: 'live' }, LIVE)).status).toBe(200);
    expect((await send({ tenant: 'acme', mode: 'live' }, TEST)).code).toBe('signature_mismatch');
    expect((await send({ tenant: 'acme', mode: 'test' }, TEST)).status).toBe(200);
  });
});

describe('refusals an unsigned client causes (finding 5)', () => {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  /** A lookup on a uuid column: a malformed name makes the database throw, with the name in its message. */
  const lookup = () => {
    const names: string[] = [];
    const secret = async ({ tenant }: { tenant: string }) => {
      names.push(tenant);
      if (!uuid.test(tenant)) throw new Error(`invalid input syntax for type uuid: "${tenant}"`);
      return undefined;
    };
    return { names, secret };
  };

  it('1,000 made-up tenant names give a few sampled log lines, bounded and escaped, not 1,000 errors', async () => {
    const { names, secret } = lookup();
    const { send, logger } = app({ secret });
    const evil = `${'x'.repeat(200)}\n\u001b[31mFAKE LOG LINE\u0007\u202e\ud800`;
    for (let i = 0; i < 1000; i++) {
      const r = await send({ tenant: `${evil}${i}` }, 'whsec_attacker0123456789abcdef0123456');
      expect(r.code).toBe('secret_unavailable');
    }
    expect(names).toHaveLength(1000);
    expect(logger.lines.length).toBeLessThanOrEqual(2);
    const text = logger.lines.join('\n');
    expect(logger.lines.every((l) => !hasControl(l))).toBe(true);
    const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    expect(logger.lines.every((l) => !loneSurrogate.test(l) && !l.includes('\u202e'))).toBe(true);
    // The tenant's name cut to 64 characters; the lookup's error (which repeats the name) to 300.
    expect(text).toContain(`for tenant "${'x'.repeat(64)}…"`);
    expect(text).not.toContain('x'.repeat(301));
    expect(logger.lines.every((l) => l.length < 600)).toBe(true);
  });

  it('a failed lookup is remembered for 2 s per tenant: repeating a name costs one lookup, not one each', async () => {
    const { names, secret } = lookup();
    const { send, clock } = app({ secret });
    for (let i = 0; i < 100; i++)
      await send({ tenant: 'not-a-uuid' }, 'whsec_attacker0123456789abcdef0123456');
    expect(names).toHaveLength(1);
    await clock.advance(2000);
    await send({ tenant: 'not-a-uuid' }, 'whsec_attacker0123456789abcdef0123456');
    expect(names).toHaveLength(2);
  });

  it('made-up tenant names never push a known tenant out of the cache', async () => {
    const names: string[] = [];
    const { send } = app({
      secret: ({ tenant }) => {
        names.push(tenant);
        return SECRETS[tenant];
      },
      secretCache: { max: 2 },
    });
    expect((await send({ tenant: 'acme' }, LIVE)).status).toBe(200);
    for (let i = 0; i < 10; i++) await send({ tenant: `nobody${i}` }, LIVE);
    expect((await send({ tenant: 'acme' }, LIVE)).status).toBe(200);
    expect(names.filter((n) => n === 'acme')).toHaveLength(1);
  });

  it('a `tenant` function that throws is logged sampled too', async () => {
    const { send, logger } = app({
      secret: ({ tenant }) => SECRETS[tenant],
      tenant: ({ headers }) => {
        throw new Error(`bad header ${String((headers as Record<string, string>)['x-account'])}`);
      },
    });
    for (let i = 0; i < 50; i++) {
      expect((await send({}, LIVE, { 'x-account': `\u001b[2J${i}` })).code).toBe('secret_unavailable');
    }
    expect(logger.lines.length).toBeLessThanOrEqual(2);
    expect(logger.lines.every((l) => !hasControl(l))).toBe(true);
  });
});
