import { closeAll, startEmulator } from './helpers.js';

afterEach(closeAll);

describe('POST /v1/auth/token', () => {
  it('exchanges a key from X-API-Key for a 48 h test-mode bearer token', async () => {
    const { call } = await startEmulator({ now: () => Date.parse('2030-01-01T00:00:00Z') });
    const res = await call('POST', '/v1/auth/token', { headers: { 'x-api-key': 'sk_test_abc' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      expires_at: '2030-01-03T00:00:00.000Z',
      expires_in: 172800,
      mode: 'test',
      token_type: 'bearer',
      workspace_id: expect.stringMatching(/^ws_/),
    });
  });

  it('takes the key from the body too, and a live key gives a live token', async () => {
    const { call } = await startEmulator();
    const res = await call('POST', '/v1/auth/token', { body: { api_key: 'sk_live_abc' } });
    expect(res.status).toBe(200);
    expect(res.body.mode).toBe('live');
  });

  it('maps one key to one workspace across tokens, and other keys elsewhere', async () => {
    const { call } = await startEmulator();
    const ws = async (key: string) =>
      (await call('POST', '/v1/auth/token', { headers: { 'x-api-key': key } })).body.workspace_id;
    expect(await ws('sk_test_a')).toBe(await ws('sk_test_a'));
    expect(await ws('sk_test_a')).not.toBe(await ws('sk_test_b'));
  });

  it.each([
    ['missing', {}],
    ['not a key', { headers: { 'x-api-key': 'pk_test_abc' } }],
    ['empty', { body: { api_key: '' } }],
    ['null', { body: { api_key: null } }],
  ])('answers 401 unauthorized for a %s key', async (_name, init) => {
    const { call } = await startEmulator();
    const res = await call('POST', '/v1/auth/token', init);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(res.body.error.message).toEqual(expect.any(String));
  });

  it('accepts only the configured keys when apiKeys is given', async () => {
    const { call } = await startEmulator({ apiKeys: ['sk_test_only'] });
    expect((await call('POST', '/v1/auth/token', { headers: { 'x-api-key': 'sk_test_only' } })).status).toBe(
      200,
    );
    expect((await call('POST', '/v1/auth/token', { headers: { 'x-api-key': 'sk_test_other' } })).status).toBe(
      401,
    );
  });

  it('answers 422 validation_error for a body that is not JSON or has a non-string api_key', async () => {
    const { call } = await startEmulator();
    const bad = await call('POST', '/v1/auth/token', { body: '{nope' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'validation_error', details: [{ field: 'body' }] });
    const typed = await call('POST', '/v1/auth/token', { body: { api_key: 42 } });
    expect(typed.status).toBe(422);
    expect(typed.body.error.details).toEqual([{ field: 'api_key', message: expect.any(String) }]);
  });

  it('rejects a missing, malformed, unknown and expired bearer token with 401', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const { call, token } = await startEmulator({ now: () => now });
    const t = await token();
    expect((await call('GET', '/v1/webhooks', { token: t })).status).toBe(200);
    expect((await call('GET', '/v1/webhooks')).status).toBe(401);
    expect((await call('GET', '/v1/webhooks', { headers: { authorization: t } })).status).toBe(401);
    expect((await call('GET', '/v1/webhooks', { token: 'tok_unknown' })).status).toBe(401);
    now += 172_800_000 - 1;
    expect((await call('GET', '/v1/webhooks', { token: t })).status).toBe(200);
    now += 1;
    const expired = await call('GET', '/v1/webhooks', { token: t });
    expect(expired.status).toBe(401);
    expect(expired.body.error).toMatchObject({
      code: 'unauthorized',
      message: expect.stringMatching(/expired/),
    });
    expect(expired.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('rate limiting', () => {
  it('answers 429 rate_limited with Retry-After once the window is used up, then recovers', async () => {
    let now = 1_000_000;
    const { call, token } = await startEmulator({
      rateLimit: { limit: 2, windowMs: 10_000 },
      now: () => now,
    });
    const t = await token();
    expect((await call('GET', '/v1/webhooks', { token: t })).status).toBe(200);
    expect((await call('GET', '/v1/webhooks', { token: t })).status).toBe(200);
    now += 2500;
    const limited = await call('GET', '/v1/webhooks', { token: t });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(limited.headers.get('retry-after')).toBe('8');
    now += 7500;
    expect((await call('GET', '/v1/webhooks', { token: t })).status).toBe(200);
  });

  it('limits the token exchange per key', async () => {
    const { call } = await startEmulator({ rateLimit: { limit: 1, windowMs: 60_000 } });
    const key = { headers: { 'x-api-key': 'sk_test_a' } };
    expect((await call('POST', '/v1/auth/token', key)).status).toBe(200);
    const limited = await call('POST', '/v1/auth/token', key);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call('POST', '/v1/auth/token', { headers: { 'x-api-key': 'sk_test_b' } })).status).toBe(
      200,
    );
  });

  it('can be turned off', async () => {
    const { call, token } = await startEmulator({ rateLimit: false });
    const t = await token();
    const statuses = await Promise.all(
      Array.from({ length: 150 }, () => call('GET', '/v1/webhooks', { token: t })),
    );
    expect(statuses.every((r) => r.status === 200)).toBe(true);
  });
});
