import { createConnection } from 'node:net';
import { closeAll, startEmulator } from './helpers.js';

afterEach(closeAll);

const valid = { url: 'https://app.example/webhooks', events: ['message.delivered', 'webhook.test'] };

describe('webhook routes', () => {
  it('creates a webhook (201) with every WebhookOut field and a whsec_ secret', async () => {
    const { call, token } = await startEmulator();
    const res = await call('POST', '/v1/webhooks', {
      token: await token(),
      body: { ...valid, description: 'orders' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^wh_[A-Za-z0-9]+$/),
      object: 'webhook',
      url: valid.url,
      events: valid.events,
      active: true,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      description: 'orders',
      secret: expect.stringMatching(/^whsec_/),
    });
  });

  it('lists the workspace webhooks with the secret masked, and no other workspace sees them', async () => {
    const { call, token } = await startEmulator();
    const mine = await token('sk_test_mine');
    const created = (await call('POST', '/v1/webhooks', { token: mine, body: valid })).body;
    const list = await call('GET', '/v1/webhooks', { token: mine });
    expect(list.status).toBe(200);
    expect(list.body.object).toBe('list');
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ id: created.id, url: valid.url, description: '' });
    expect(list.body.data[0].secret).not.toBe(created.secret);
    expect(list.body.data[0].secret).toBe(`whsec_********${created.secret.slice(-4)}`);
    const theirs = await call('GET', '/v1/webhooks', { token: await token('sk_test_theirs') });
    expect(theirs.body.data).toEqual([]);
  });

  it.each([
    ['a plain-HTTP URL', { ...valid, url: 'http://app.example/hook' }, 'url'],
    ['a loopback HTTP URL without the flag', { ...valid, url: 'http://127.0.0.1:3000/hook' }, 'url'],
    ['a relative URL', { ...valid, url: '/hook' }, 'url'],
    ['a 501-character URL', { ...valid, url: `https://app.example/${'a'.repeat(481)}` }, 'url'],
    ['no URL', { events: valid.events }, 'url'],
    ['an unknown event type', { ...valid, events: ['message.sent', 'message.exploded'] }, 'events[1]'],
    ['an empty events list', { ...valid, events: [] }, 'events'],
    ['events not an array', { ...valid, events: 'message.sent' }, 'events'],
    ['a 201-character description', { ...valid, description: 'd'.repeat(201) }, 'description'],
    ['a non-string description', { ...valid, description: 5 }, 'description'],
    ['an unknown field', { ...valid, secret: 'whsec_mine' }, 'secret'],
  ])('refuses %s with 422 validation_error naming the field', async (_name, body, field) => {
    const { call, token } = await startEmulator();
    const res = await call('POST', '/v1/webhooks', { token: await token(), body });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toContainEqual({ field, message: expect.any(String) });
  });

  it('accepts the limits exactly: a 500-character URL and a 200-character description', async () => {
    const { call, token } = await startEmulator();
    const url = `https://app.example/${'a'.repeat(480)}`;
    expect(url).toHaveLength(500);
    const res = await call('POST', '/v1/webhooks', {
      token: await token(),
      body: { ...valid, url, description: 'd'.repeat(200) },
    });
    expect(res.status).toBe(201);
  });

  it('reports every bad field at once', async () => {
    const { call, token } = await startEmulator();
    const res = await call('POST', '/v1/webhooks', {
      token: await token(),
      body: { url: 'ftp://x', events: [] },
    });
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(['url', 'events']);
  });

  it('accepts a loopback HTTP URL with allowInsecureLoopback, but still no other HTTP host', async () => {
    const { call, token } = await startEmulator({ allowInsecureLoopback: true });
    const t = await token();
    for (const url of [
      'http://localhost:3000/hook',
      'http://127.0.0.1:3000/hook',
      'http://[::1]:3000/hook',
    ]) {
      expect((await call('POST', '/v1/webhooks', { token: t, body: { ...valid, url } })).status).toBe(201);
    }
    expect(
      (await call('POST', '/v1/webhooks', { token: t, body: { ...valid, url: 'http://10.0.0.1/hook' } }))
        .status,
    ).toBe(422);
  });

  it('deletes a webhook (204, no body), then answers 404 not_found', async () => {
    const { call, token } = await startEmulator();
    const t = await token();
    const { id } = (await call('POST', '/v1/webhooks', { token: t, body: valid })).body;
    const del = await call('DELETE', `/v1/webhooks/${id}`, { token: t });
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await call('GET', '/v1/webhooks', { token: t })).body.data).toEqual([]);
    const again = await call('DELETE', `/v1/webhooks/${id}`, { token: t });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('not_found');
  });

  it('answers 404 for another workspace webhook and 422 for an id that is not wh_…', async () => {
    const { call, token } = await startEmulator();
    const { id } = (await call('POST', '/v1/webhooks', { token: await token('sk_test_a'), body: valid }))
      .body;
    expect((await call('DELETE', `/v1/webhooks/${id}`, { token: await token('sk_test_b') })).status).toBe(
      404,
    );
    const bad = await call('DELETE', '/v1/webhooks/nope', { token: await token('sk_test_a') });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toEqual([{ field: 'webhook_id', message: expect.any(String) }]);
  });

  it('lists deliveries: empty for a fresh or unknown webhook (the spec lists no 404 here)', async () => {
    const { call, token } = await startEmulator();
    const t = await token();
    const { id } = (await call('POST', '/v1/webhooks', { token: t, body: valid })).body;
    expect((await call('GET', `/v1/webhooks/${id}/deliveries`, { token: t })).body).toEqual({
      object: 'list',
      data: [],
    });
    const unknown = await call('GET', '/v1/webhooks/wh_unknown/deliveries', { token: t });
    expect(unknown.status).toBe(200);
    expect(unknown.body.data).toEqual([]);
  });

  it('test route: 202 for a webhook subscribed to webhook.test, 422 otherwise and for an unknown one', async () => {
    const { call, token } = await startEmulator();
    const t = await token();
    const subscribed = (await call('POST', '/v1/webhooks', { token: t, body: valid })).body;
    const accepted = await call('POST', `/v1/webhooks/${subscribed.id}/test`, { token: t });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({
      event_id: expect.stringMatching(/^evt_/),
      delivery_id: expect.stringMatching(/^whd_/),
    });
    const other = (
      await call('POST', '/v1/webhooks', { token: t, body: { ...valid, events: ['message.sent'] } })
    ).body;
    const refused = await call('POST', `/v1/webhooks/${other.id}/test`, { token: t });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('validation_error');
    // One rule with the deliveries route: an unknown id is a webhook that subscribes to nothing.
    const unknown = await call('POST', '/v1/webhooks/wh_unknown/test', { token: t });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details).toEqual([{ field: 'webhook_id', message: expect.any(String) }]);
  });

  it('answers 401 before anything else on every webhook route', async () => {
    const { call } = await startEmulator();
    for (const [method, path] of [
      ['POST', '/v1/webhooks'],
      ['GET', '/v1/webhooks'],
      ['DELETE', '/v1/webhooks/wh_x'],
      ['GET', '/v1/webhooks/wh_x/deliveries'],
      ['POST', '/v1/webhooks/wh_x/test'],
    ] as const) {
      const res = await call(method, path, { body: method === 'POST' ? valid : undefined });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
  });

  it('answers a bad percent-encoding in webhook_id (%E0) with 401 first, then 422, never 500', async () => {
    const { call, token } = await startEmulator();
    const routes = [
      ['DELETE', '/v1/webhooks/%E0'],
      ['GET', '/v1/webhooks/%E0/deliveries'],
      ['POST', '/v1/webhooks/wh_%E0%A4/test'],
    ] as const;
    for (const [method, path] of routes) {
      expect((await call(method, path)).status, `${method} ${path} without a token`).toBe(401);
    }
    const t = await token();
    for (const [method, path] of routes) {
      const res = await call(method, path, { token: t });
      expect(res.status, `${method} ${path}`).toBe(422);
      expect(res.body.error).toMatchObject({
        code: 'validation_error',
        details: [{ field: 'webhook_id', message: expect.any(String) }],
      });
    }
  });

  it('answers a request target that is no URL with 404 instead of crashing', async () => {
    const { url, call } = await startEmulator();
    const { port } = new URL(url);
    const statusLine = await new Promise<string>((resolve, reject) => {
      // fetch cannot send this request line; a raw socket can, and so can any client on the network.
      const socket = createConnection(Number(port), '127.0.0.1', () =>
        socket.write('GET http://[ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
      );
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk;
      });
      socket.on('close', () => resolve(data.split('\r\n')[0]!));
      socket.on('error', reject);
    });
    expect(statusLine).toBe('HTTP/1.1 404 Not Found');
    expect((await call('GET', '/_emulator/health')).status).toBe(200);
  });

  it('answers 405 with Allow for a wrong method and 404 for an unknown path', async () => {
    const { call, token } = await startEmulator();
    const wrong = await call('PUT', '/v1/webhooks', { token: await token() });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, POST');
    expect((await call('GET', '/v1/nothing')).status).toBe(404);
    expect((await call('GET', '/v1/auth/token')).status).toBe(405);
  });
});
