import type { AddressInfo } from 'node:net';
import { createTestDelivery } from '@sms-webhooks/core';
import { afterEach, expect, it } from 'vitest';
import { createApp } from './app.js';
import { serve } from './node-server.js';

const secret = 'whsec_examplehono0123456789abcdef012';
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function start() {
  const lines: string[] = [];
  const { app, receiver } = createApp({ secret, log: (l) => lines.push(l) });
  const server = serve(app.fetch);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, receiver, lines };
}

it('receives a signed delivery over real HTTP, answers a redelivery as a duplicate, refuses a forgery', async () => {
  const { url, receiver, lines } = await start();
  const d = createTestDelivery('message.delivered', { secret });
  const res = await fetch(`${url}/webhooks/sms`, { method: 'POST', body: d.body, headers: d.headers });
  expect(res.status).toBe(200);
  await receiver.drain();
  expect(lines).toEqual([
    `message.delivered ${d.event.id}: message ${d.event.data.id} to ${d.event.data.to} (attempt 1)`,
  ]);

  const again = await fetch(`${url}/webhooks/sms`, { method: 'POST', body: d.body, headers: d.headers });
  expect(await again.json()).toEqual({ received: true, duplicate: true });
  const forged = await fetch(`${url}/webhooks/sms`, {
    method: 'POST',
    body: `${d.body} `,
    headers: d.headers,
  });
  expect(forged.status).toBe(400);
  const get = await fetch(`${url}/webhooks/sms`);
  expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
  expect(await (await fetch(`${url}/health`)).json()).toEqual({ ok: true });
});
