import { createClient, deliveryOutcome, ServiceApiError } from '@sms-webhooks/client';
import { closeEmulator, rejection, startEmulatorClient } from './emulator-client.js';

const HOUR = 3_600_000;

afterEach(closeEmulator);

const input = {
  url: 'https://app.example/webhooks',
  events: ['message.sent' as const, 'webhook.test' as const],
};

describe('createClient against the emulator', () => {
  it('covers every endpoint: create, list, test, deliveries, delete', async () => {
    const { client } = await startEmulatorClient();
    const created = await client.createWebhook({ ...input, description: 'orders' });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^wh_/),
      secret: expect.stringMatching(/^whsec_/),
    });
    expect((await client.listWebhooks()).data.map((w) => w.id)).toEqual([created.id]);
    expect(await client.testWebhook(created.id)).toMatchObject({ event_id: expect.stringMatching(/^evt_/) });
    await vi.waitFor(async () => expect((await client.listDeliveries(created.id)).data).toHaveLength(1));
    await expect(client.deleteWebhook(created.id)).resolves.toBeUndefined();
    expect((await client.listWebhooks()).data).toEqual([]);
  });

  it('exchanges the key once, sends it only to the token route, and reuses the token', async () => {
    const { client, seen, emulator } = await startEmulatorClient();
    await Promise.all([client.listWebhooks(), client.listWebhooks(), client.listWebhooks()]);
    await client.listWebhooks();
    expect(emulator.tokensIssued).toBe(1);
    const exchanges = seen.filter((s) => s.path === '/v1/auth/token');
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]!.apiKey).toBe('sk_test_client');
    const others = seen.filter((s) => s.path !== '/v1/auth/token');
    expect(others.every((s) => s.apiKey === null && s.authorization?.startsWith('Bearer tok_'))).toBe(true);
  });

  it('refreshes the token shortly before it expires, before the service refuses it', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const clock = () => now;
    const { client, seen, emulator } = await startEmulatorClient(
      { now: clock },
      { now: clock, refreshMarginMs: 5 * 60_000 },
    );
    await client.listWebhooks();
    now += 48 * HOUR - 6 * 60_000;
    await client.listWebhooks();
    expect(emulator.tokensIssued).toBe(1);
    now += 2 * 60_000; // 4 minutes left: inside the margin
    await client.listWebhooks();
    expect(emulator.tokensIssued).toBe(2);
    expect(seen.some((s) => s.status === 401)).toBe(false);
  });

  it('caps the refresh margin at half the token lifetime, so a long margin cannot exchange on every call', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const clock = () => now;
    const { client, emulator } = await startEmulatorClient(
      { now: clock },
      { now: clock, refreshMarginMs: 47 * HOUR },
    );
    await client.listWebhooks();
    now += 23 * HOUR; // inside the 47 h margin, but the cap (24 h) keeps the token
    await client.listWebhooks();
    await client.listWebhooks();
    expect(emulator.tokensIssued).toBe(1);
    now += 2 * HOUR; // 25 h in: past half the lifetime
    await client.listWebhooks();
    expect(emulator.tokensIssued).toBe(2);
  });

  it('applies the cap to a shorter token than the spec promises (60 s with the default 5 min margin)', async () => {
    let now = 0;
    let exchanges = 0;
    const shortTokens: typeof fetch = async (input) => {
      if (String(input).endsWith('/v1/auth/token')) {
        exchanges += 1;
        return Response.json({ access_token: `tok_${exchanges}`, expires_in: 60, token_type: 'bearer' });
      }
      return Response.json({ object: 'list', data: [] });
    };
    const client = createClient({
      apiKey: 'sk_test_x',
      baseUrl: 'http://127.0.0.1:1',
      fetch: shortTokens,
      now: () => now,
    });
    await client.listWebhooks();
    now += 10_000;
    await client.listWebhooks();
    expect(exchanges).toBe(1);
    now += 21_000; // 31 s in: past half of 60 s
    await client.listWebhooks();
    expect(exchanges).toBe(2);
  });

  it('on a 401 exchanges the key again once and retries the request', async () => {
    let serverNow = Date.parse('2030-01-01T00:00:00Z');
    const { client, seen, emulator } = await startEmulatorClient({ now: () => serverNow });
    await client.listWebhooks();
    serverNow += 49 * HOUR; // the server sees the token as expired; the client's clock does not
    const list = await client.listWebhooks();
    expect(list.object).toBe('list');
    expect(emulator.tokensIssued).toBe(2);
    expect(seen.map((s) => `${s.path} ${s.status}`)).toEqual([
      '/v1/auth/token 200',
      '/v1/webhooks 200',
      '/v1/webhooks 401',
      '/v1/auth/token 200',
      '/v1/webhooks 200',
    ]);
  });

  it('throws 401 unauthorized when a fresh token is refused too, without looping', async () => {
    const { baseUrl } = await startEmulatorClient();
    let calls = 0;
    const breakingFetch: typeof fetch = (input, init) => {
      calls += 1;
      const headers = new Headers(init?.headers);
      if (headers.has('authorization')) headers.set('authorization', 'Bearer tok_forged');
      return fetch(input, { ...init, headers });
    };
    const client = createClient({ apiKey: 'sk_test_client', baseUrl, fetch: breakingFetch });
    const error = await rejection(client.listWebhooks());
    expect(error).toMatchObject({ status: 401, code: 'unauthorized', sent: true });
    expect(calls).toBe(4); // exchange, request, exchange, request
  });

  it('throws 401 for an API key the service refuses, after a single exchange', async () => {
    const { client, seen } = await startEmulatorClient({ apiKeys: ['sk_test_other'] });
    const error = await rejection(client.listWebhooks());
    expect(error).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(error).toBeInstanceOf(ServiceApiError);
    expect(seen).toHaveLength(1);
  });

  it('waits out a 429 for Retry-After and then succeeds', async () => {
    const { client, seen } = await startEmulatorClient({ rateLimit: { limit: 1, windowMs: 1000 } });
    await client.listWebhooks();
    const started = performance.now();
    await client.listWebhooks();
    expect(seen.map((s) => s.status)).toEqual([200, 200, 429, 200]);
    // Retry-After: 1 means at least the rest of the one-second window; allow early rounding only.
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('gives up on a 429 after maxRetries, or at once when Retry-After is longer than maxRetryWaitMs', async () => {
    const limited = await startEmulatorClient(
      { rateLimit: { limit: 1, windowMs: 60_000 } },
      { maxRetries: 5, maxRetryWaitMs: 2000 },
    );
    await limited.client.listWebhooks();
    const tooLong = await rejection(limited.client.listWebhooks());
    expect(tooLong).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 60 });
    expect(limited.seen.filter((s) => s.status === 429)).toHaveLength(1);
    await limited.emulator.close();

    const bounded = await startEmulatorClient({ rateLimit: { limit: 1, windowMs: 1000 } }, { maxRetries: 0 });
    await bounded.client.listWebhooks();
    const noRetry = await rejection(bounded.client.listWebhooks());
    expect(noRetry).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 1 });
  });

  it.each([
    ['an HTTP URL', { ...input, url: 'http://app.example/hook' }, 'url'],
    ['a relative URL', { ...input, url: 'hook' }, 'url'],
    ['a 501-character URL', { ...input, url: `https://app.example/${'a'.repeat(481)}` }, 'url'],
    ['an unknown event', { ...input, events: ['message.lost'] }, 'events[0]'],
    ['no events', { ...input, events: [] }, 'events'],
    ['a 201-character description', { ...input, description: 'd'.repeat(201) }, 'description'],
  ])('refuses %s before sending anything', async (_name, bad, field) => {
    const { client, seen } = await startEmulatorClient();
    const error = await rejection(client.createWebhook(bad as never));
    expect(error).toMatchObject({ status: 422, code: 'validation_error', sent: false });
    expect(error.details).toContainEqual({ field, message: expect.any(String) });
    expect(seen).toEqual([]);
  });

  it('refuses a malformed webhook id before sending anything', async () => {
    const { client, seen } = await startEmulatorClient();
    for (const call of [
      client.deleteWebhook('x/../y'),
      client.listDeliveries(''),
      client.testWebhook('evt_1'),
    ]) {
      expect(await rejection(call)).toMatchObject({ code: 'validation_error', sent: false });
    }
    expect(seen).toEqual([]);
  });

  it('carries the service error: 404 not_found, and 422 with field details', async () => {
    const { client } = await startEmulatorClient(
      { allowInsecureLoopback: false },
      { allowInsecureLoopback: true },
    );
    expect(await rejection(client.deleteWebhook('wh_missing'))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    const error = await rejection(client.createWebhook({ ...input, url: 'http://127.0.0.1:3000/hook' }));
    expect(error).toMatchObject({ status: 422, code: 'validation_error', sent: true });
    expect(error.details).toEqual([{ field: 'url', message: expect.stringMatching(/HTTPS/) }]);
    const webhook = await client.createWebhook({ ...input, events: ['message.sent'] });
    expect(await rejection(client.testWebhook(webhook.id))).toMatchObject({
      status: 422,
      code: 'validation_error',
    });
  });

  it('reports an unreachable service as network_error with status 0', async () => {
    const client = createClient({ apiKey: 'sk_test_x', baseUrl: 'http://127.0.0.1:1' });
    expect(await rejection(client.listWebhooks())).toMatchObject({ status: 0, code: 'network_error' });
  });

  it('checks its own options', () => {
    expect(() => createClient({ apiKey: '', baseUrl: 'http://x' })).toThrow(/apiKey is required/);
    expect(() => createClient({ apiKey: ' sk_test_x', baseUrl: 'http://x' })).toThrow(/whitespace/);
    expect(() => createClient({ apiKey: 'sk_test_x', baseUrl: 'not a url' })).toThrow(/baseUrl/);
    for (const refreshMarginMs of [48 * HOUR, 100 * HOUR, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => createClient({ apiKey: 'sk_test_x', baseUrl: 'http://x', refreshMarginMs })).toThrow(
        `@sms-webhooks/client: refreshMarginMs must be a number of ms from 0 to below the 48 h token lifetime (172800000), got ${refreshMarginMs}.`,
      );
    }
    expect(() =>
      createClient({ apiKey: 'sk_test_x', baseUrl: 'http://x', refreshMarginMs: 0 }),
    ).not.toThrow();
  });
});

describe('deliveryOutcome', () => {
  const base = { status: 'pending', attempts: 1, delivered_at: null, next_attempt_at: null };
  it('reads the outcome from the fields, since the spec shows `pending` on a record with a 200', () => {
    expect(deliveryOutcome({ ...base, delivered_at: '2030-01-01T00:00:00.000Z' })).toBe('delivered');
    expect(deliveryOutcome({ ...base, next_attempt_at: '2030-01-01T00:01:00.000Z' })).toBe('retrying');
    expect(deliveryOutcome({ ...base, attempts: 6 })).toBe('failed');
    expect(deliveryOutcome({ ...base, status: 'failed', attempts: 2 })).toBe('failed');
    // Between an attempt's start and its result nothing is recorded yet.
    expect(deliveryOutcome(base)).toBe('in_progress');
  });
});
