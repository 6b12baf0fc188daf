import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createTestDelivery } from '@sms-webhooks/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type Platform } from './app.js';

const secret = 'whsec_examplenestjs0123456789abcdef0';
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function start(platform: Platform) {
  const lines: string[] = [];
  const { app, receiver } = await createApp({
    secret,
    platform,
    nestLogs: false,
    respond: 'after-handlers',
    log: (l) => lines.push(l),
  });
  await app.listen(0, '127.0.0.1');
  closers.push(() => app.close());
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, receiver, lines };
}

describe.each(['express', 'fastify'] as const)('examples/nestjs createApp on %s', (platform) => {
  it('handles a signed delivery in its provider, answers a redelivery as a duplicate, refuses a forgery', async () => {
    const { url, lines } = await start(platform);
    const d = createTestDelivery('message.delivered', { secret, attempt: 2 });
    const res = await fetch(`${url}/webhooks/sms`, { method: 'POST', body: d.body, headers: d.headers });
    expect(res.status).toBe(200);
    expect(lines).toEqual([
      `message.delivered ${d.event.id}: message ${d.event.data.id} to ${d.event.data.to} (attempt 2)`,
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
  });

  it('keeps Nest’s own routes as they were: /health, and a JSON body parsed for /api/notes', async () => {
    const { url } = await start(platform);
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ ok: true });
    const note = await fetch(`${url}/api/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'call back' }),
    });
    expect(await note.json()).toEqual({ saved: { text: 'call back' } });
  });
});

/** Collects a child's output and resolves when a line matching `pattern` appears. */
function waitForOutput(child: ChildProcess, output: { text: string }, pattern: RegExp) {
  return new Promise<RegExpMatchArray>((resolve, reject) => {
    const check = () => {
      const match = output.text.match(pattern);
      if (match) {
        child.stdout?.off('data', check);
        resolve(match);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => reject(new Error(`exited with ${code} before ${pattern}:\n${output.text}`)));
    check();
  });
}

// Long enough that SIGTERM certainly arrives while the handler is still waiting, short enough for CI.
const SLOW_HANDLER_MS = 1500;

describe.each(['express', 'fastify'] as const)(
  'examples/nestjs main.ts (its start script) on %s',
  (platform) => {
    it('starts, answers a signed delivery, and on SIGTERM finishes the running handler before exiting 0', async () => {
      // Node with tsx's loader runs the start script's program without the tsx CLI between it and the signal:
      // that CLI relays SIGTERM by killing its child outright (SIGKILL) when the child has not acknowledged the
      // signal within 30 ms, which a loaded machine misses, so the drain this test checks would never be seen.
      const child = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], {
        cwd: fileURLToPath(new URL('.', import.meta.url)),
        env: {
          ...process.env,
          PORT: '0',
          HOST: '127.0.0.1',
          SMS_WEBHOOK_SECRET: secret,
          EXAMPLE_PLATFORM: platform,
          // Handlers wait before logging: without it they finish at once and a shutdown that did not
          // drain would pass this test just the same.
          EXAMPLE_SLOW_HANDLER_MS: String(SLOW_HANDLER_MS),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const output = { text: '' };
      child.stdout.on('data', (c: Buffer) => {
        output.text += c.toString();
      });
      child.stderr.on('data', (c: Buffer) => {
        output.text += c.toString();
      });
      try {
        const [, port] = await waitForOutput(
          child,
          output,
          /listening on http:\/\/localhost:(\d+)\/webhooks/,
        );
        expect(output.text).toContain(`example-nestjs (${platform})`);
        const d = createTestDelivery('message.failed', { secret });
        const res = await fetch(`http://127.0.0.1:${port}/webhooks/sms`, {
          method: 'POST',
          headers: d.headers,
          body: d.body,
        });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ received: true });
        const handled = new RegExp(`message.failed ${d.event.id}: .* failed: unreachable`);
        // The 200 went out before the handler ran ('immediately'); it is still waiting when SIGTERM arrives.
        expect(output.text).not.toMatch(handled);
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        const [code] = await exited;
        expect(output.text).toMatch(handled);
        expect(output.text.search(handled)).toBeLessThan(output.text.indexOf('drained, bye'));
        expect(output.text).not.toContain('SMS_WEBHOOK_SECRET is not set');
        expect(code).toBe(0);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    }, 30_000);
  },
);
