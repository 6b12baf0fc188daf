import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as functions from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { webhookMiddleware } from '@sms-webhooks/express';
import { captureLogger } from '@sms-webhooks/test-helpers';

// Google Cloud Functions (and Firebase, which deploys onto it) parse every body before the function runs
// and keep the bytes as req.rawBody. This runs the middleware behind @google-cloud/functions-framework's
// own server (the one `functions-framework --target` serves), as its README shows.

const secret = 'whsec_cloudfunctions0123456789abcdef';
const logger = captureLogger();
const receiver = createReceiver({ secret, logger, respond: 'after-handlers', maxBodyBytes: 64 * 1024 });
const handled: string[] = [];
receiver.on('message.delivered', (event) => {
  handled.push(event.id);
});

const middleware = webhookMiddleware(receiver);
functions.http('smsWebhooks', (req, res) => middleware(req, res, () => res.status(500).end()));

let server: Server;
let url: string;

beforeAll(async () => {
  server = getTestServer('smsWebhooks');
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const post = (body: string, headers: Record<string, string>) => fetch(url, { method: 'POST', body, headers });

describe('webhookMiddleware on @google-cloud/functions-framework', () => {
  it('verifies the bytes the framework kept in req.rawBody after parsing the JSON: 200, handled once', async () => {
    const d = createTestDelivery('message.delivered', { secret, data: { to: '+15555550123 ☎' } });
    const first = await post(d.body, d.headers);
    expect([first.status, await first.json()]).toEqual([200, { received: true }]);
    expect(handled).toEqual([d.event.id]);
    const again = await post(d.body, d.headers);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(handled).toEqual([d.event.id]);
  });

  it('verifies the bytes, not the text the framework decoded with the charset the request named', async () => {
    const d = createTestDelivery('message.delivered', { secret, data: { to: '+15555550124 é' } });
    // UTF-8 bytes labelled Latin-1: req.body is decoded text that no longer matches them; req.rawBody does.
    const res = await post(d.body, { ...d.headers, 'content-type': 'text/plain; charset=iso-8859-1' });
    expect(res.status).toBe(200);
    expect(handled).toContain(d.event.id);
  });

  it('refuses a forged delivery 400 signature_mismatch', async () => {
    const d = createTestDelivery('message.delivered', { secret: 'whsec_forged_0123456789abcdef0123456' });
    const res = await post(d.body, d.headers);
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('signature_mismatch');
    expect(handled).not.toContain(d.event.id);
  });

  it('refuses a kept body over maxBodyBytes 413', async () => {
    const d = createTestDelivery('message.delivered', {
      secret,
      data: { metadata: { note: 'x'.repeat(70 * 1024) } },
    });
    const res = await post(d.body, d.headers);
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe('payload_too_large');
  });
});
