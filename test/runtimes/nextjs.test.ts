import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDelivery } from '@sms-webhooks/core';
import { freePort } from '@sms-webhooks/test-helpers/free-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NextServer, prepareNextApp, startNext } from './nextjs-app.js';

// examples/nextjs, built once with `next build` and served by `next start`: its two route files,
// app/webhooks/sms/route.ts (runtime 'nodejs') and app/webhooks/sms/edge/route.ts (runtime 'edge'),
// each handing the handlers to Next's after().

const secret = 'whsec_nextjs_0123456789abcdef01234567';
const dir = fileURLToPath(new URL(`../.tmp/nextjs-${process.pid}`, import.meta.url));
let server: NextServer;

beforeAll(async () => {
  const app = prepareNextApp(dir);
  server = await startNext(app, await freePort(), { SMS_WEBHOOK_SECRET: secret });
}, 600_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Waits (up to 10 s) until the server printed `line` `count` times, then checks it is exactly that. */
async function printed(line: string, count: number): Promise<void> {
  const times = () =>
    server
      .output()
      .split('\n')
      .filter((l) => l.includes(line)).length;
  for (let i = 0; i < 200 && times() < count; i++) await new Promise((r) => setTimeout(r, 50));
  expect(times(), server.output()).toBe(count);
}

describe.each([
  ['nodejs', '/webhooks/sms'],
  ['edge', '/webhooks/sms/edge'],
])('Next.js route with runtime %s', (runtime, path) => {
  const post = (body: string, headers: Record<string, string>) =>
    fetch(`${server.url}${path}`, { method: 'POST', body, headers });

  it('answers a signed delivery 200, runs its handler after the response once, and a redelivery is a duplicate', async () => {
    const d = createTestDelivery('message.delivered', { secret });
    const first = await post(d.body, d.headers);
    expect([first.status, await first.json()], server.output()).toEqual([200, { received: true }]);
    const line = `${runtime}: message ${d.event.data.id} delivered to ${d.event.data.to} (${d.event.id})`;
    await printed(line, 1);
    const again = await post(d.body, d.headers);
    expect([again.status, await again.json()]).toEqual([200, { received: true, duplicate: true }]);
    // Give a second run the time the first one took to show; there must be none.
    await new Promise((r) => setTimeout(r, 300));
    await printed(line, 1);
  });

  it('answers a forged delivery 400 signature_mismatch and runs no handler', async () => {
    const d = createTestDelivery('message.delivered', { secret: 'whsec_forged_0123456789abcdef0123456' });
    const res = await post(d.body, d.headers);
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('signature_mismatch');
    expect(server.output()).not.toContain(d.event.id);
  });
});

it("bundled the edge route with core's Web build (the edge-light condition), the nodejs route with the Node build", () => {
  const chunks = (sub: string) =>
    readdirSync(join(dir, 'app/.next/server', sub), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(dir, 'app/.next/server', sub, f), 'utf8'))
      .join('\n');
  const edge = chunks('edge');
  expect(edge).toContain('crypto.subtle.importKey');
  expect(edge).not.toMatch(/createHmac/);
  expect(chunks('chunks')).toMatch(/createHmac/);
});
