import { request } from 'node:http';
import { createEmulator, type Emulator } from '@sms-webhooks/emulator';
import { type RecordingApp, recordingApp } from '@sms-webhooks/test-helpers/recording-app';

// Issue 14, point 6: a web page the developer visits must not be able to drive the emulator, which signs
// real deliveries to their app. Before the fix, each refusal below was a 202 (or 200) and a delivery.

/** A raw request, so the Host and Origin headers are exactly what a browser would send. */
function raw(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body = '',
): Promise<{ status: number; body: { error?: { code: string } } & Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      let text = '';
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

let emulator: Emulator;
let port: number;
let app: RecordingApp;

async function start(host?: string) {
  app = await recordingApp();
  emulator = createEmulator({ allowInsecureLoopback: true });
  const url = await emulator.listen(0, host);
  port = Number(new URL(url.replace('0.0.0.0', '127.0.0.1')).port);
  const { createClient } = await import('@sms-webhooks/client');
  await createClient({
    apiKey: 'sk_test_origin',
    baseUrl: `http://127.0.0.1:${port}`,
    allowInsecureLoopback: true,
  }).createWebhook({
    url: app.url,
    events: ['message.sent'],
  });
}

afterEach(async () => {
  await emulator.close();
  await app.close();
});

const event = JSON.stringify({ type: 'message.sent' });
const json = { 'content-type': 'application/json' };

/** POST /_emulator/events with one message.sent, and exactly these headers. */
function postEvent(headers: Record<string, string>) {
  return raw(port, 'POST', '/_emulator/events', headers, event);
}

describe('the emulator bound to a loopback address', () => {
  beforeEach(() => start());

  it('refuses a cross-site text/plain POST from a foreign Origin: no delivery', async () => {
    const res = await postEvent({
      host: `127.0.0.1:${port}`,
      origin: 'https://evil.example',
      'content-type': 'text/plain',
    });
    expect(res.status).toBe(403);
    expect(res.body.error?.code).toBe('origin_not_allowed');
    await emulator.waitForIdle(2000);
    expect(app.requests).toHaveLength(0);
  });

  it.each(['https://evil.example', 'null', 'http://localhost.evil.example'])(
    'refuses Origin %s even with application/json',
    async (origin) => {
      const res = await postEvent({ host: `127.0.0.1:${port}`, origin, ...json });
      expect(res.status).toBe(403);
      expect(res.body.error?.code).toBe('origin_not_allowed');
    },
  );

  it.each([
    ['a rebinding name', 'evil.example'],
    ['a rebinding name with the port', 'evil.example:4010'],
    ['a LAN address', '192.168.1.20:4010'],
  ])('refuses %s in Host on every route (DNS rebinding)', async (_case, host) => {
    for (const [method, path, body] of [
      ['POST', '/_emulator/events', event],
      ['GET', '/_emulator/health', ''],
      ['POST', '/v1/auth/token', JSON.stringify({ api_key: 'sk_test_x' })],
    ] as const) {
      const res = await raw(port, method, path, { host, ...json }, body);
      expect(res.status).toBe(403);
      expect(res.body.error?.code).toBe('host_not_allowed');
    }
    expect(app.requests).toHaveLength(0);
  });

  it('requires application/json on the /_emulator POST routes, the redeliver route included', async () => {
    const host = { host: `127.0.0.1:${port}` };
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await postEvent({ ...host, 'content-type': type });
      expect(res.status).toBe(415);
      expect(res.body.error?.code).toBe('unsupported_media_type');
    }
    const sends = await raw(port, 'POST', '/_emulator/sends', host, '{}');
    expect(sends.status).toBe(415);
    const redeliver = await raw(port, 'POST', '/_emulator/events/evt_x/redeliver', host);
    expect(redeliver.status).toBe(415);
    await emulator.waitForIdle(2000);
    expect(app.requests).toHaveLength(0);
  });

  it.each([
    ['127.0.0.1 with its port', (p: number) => ({ host: `127.0.0.1:${p}` })],
    ['localhost', (p: number) => ({ host: `localhost:${p}` })],
    ['[::1]', (p: number) => ({ host: `[::1]:${p}` })],
    [
      'a loopback page as Origin',
      (p: number) => ({ host: `127.0.0.1:${p}`, origin: 'http://localhost:3000' }),
    ],
  ])('accepts %s with application/json', async (_case, headers) => {
    const res = await postEvent({ ...headers(port), 'content-type': 'application/json; charset=utf-8' });
    expect(res.status).toBe(202);
    await emulator.waitForIdle(5000);
    expect(app.requests).toHaveLength(1);
  });
});

describe('the emulator bound to another address by choice', () => {
  beforeEach(() => start('0.0.0.0'));

  it('accepts any Host, but still refuses a foreign Origin and a non-JSON POST', async () => {
    const ok = await postEvent({ host: `devbox.lan:${port}`, ...json });
    expect(ok.status).toBe(202);
    const foreign = await postEvent({ host: `devbox.lan:${port}`, origin: 'https://evil.example', ...json });
    expect(foreign.status).toBe(403);
    const sameOrigin = await postEvent({
      host: `devbox.lan:${port}`,
      origin: `http://devbox.lan:${port}`,
      ...json,
    });
    expect(sameOrigin.status).toBe(202);
    const plain = await postEvent({ host: `devbox.lan:${port}`, 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
    await emulator.waitForIdle(5000);
    expect(app.requests).toHaveLength(2);
  });
});
