import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createTestDelivery } from '@sms-webhooks/core';
import { listen, waitFor } from '@sms-webhooks/test-helpers';
import { createApp as createExpressApp } from '../../examples/express/app.js';
import { createApp as createFastifyApp } from '../../examples/fastify/app.js';
import { createApp as createKoaApp } from '../../examples/koa/app.js';
import { createHandler as createLambdaHandler } from '../../examples/lambda/app.js';
import { albEvent, httpApiEvent, restApiEvent } from '../../packages/lambda/test/events.js';
import { bundle } from '../runtimes/bundle.js';
import type { RunningApp } from '../runtimes/contract.js';
import { startWorker } from '../runtimes/workerd.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const secret = 'whsec_examples0123456789abcdef012345';

type Started = { url: string; close(): Promise<void> };
type Log = (line: string) => void;

const inProcess: [string, (log: Log) => Promise<Started>][] = [
  [
    'express',
    async (log) => {
      const { server, receiver } = createExpressApp({ secret, log, respond: 'after-handlers' });
      const s = await listen(server, '/webhooks/sms');
      const close = async () => {
        await s.close();
        await receiver.close();
      };
      return { url: s.url, close };
    },
  ],
  [
    'fastify',
    async (log) => {
      const { app } = await createFastifyApp({ secret, log, respond: 'after-handlers' });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      return { url: `http://127.0.0.1:${port}/webhooks/sms`, close: async () => void (await app.close()) };
    },
  ],
  [
    'koa',
    async (log) => {
      const { server, receiver } = createKoaApp({ secret, log, respond: 'after-handlers' });
      const s = await listen(server, '/webhooks/sms');
      const close = async () => {
        await s.close();
        await receiver.close();
      };
      return { url: s.url, close };
    },
  ],
];

describe.each(inProcess)('examples/%s createApp', (_name, start) => {
  it('answers a signed delivery, logs what it received, and refuses a forged one', async () => {
    const lines: string[] = [];
    const app = await start((line) => lines.push(line));
    try {
      const d = createTestDelivery('message.delivered', { secret, attempt: 2 });
      const res = await fetch(app.url, { method: 'POST', headers: d.headers, body: d.body });
      expect(res.status).toBe(200);
      expect(lines).toContainEqual(
        `message.delivered ${d.event.id}: message ${d.event.data.id} to ${d.event.data.to} (attempt 2)`,
      );
      const forged = createTestDelivery('message.delivered', { secret: 'whsec_not_the_one' });
      const refused = await fetch(app.url, { method: 'POST', headers: forged.headers, body: forged.body });
      expect(refused.status).toBe(400);
      expect(lines.join('\n')).not.toContain(forged.event.id);
      expect((await fetch(app.url)).status).toBe(405);
    } finally {
      await app.close();
    }
  });
});

// The Lambda example has no server: its handler is invoked with each event source's documented shape.
describe('examples/lambda createHandler', () => {
  it.each([
    ['an HTTP API (payload 2.0) or Function URL', httpApiEvent],
    ['a REST API (payload 1.0)', restApiEvent],
    ['an ALB', (input: Parameters<typeof albEvent>[0]) => albEvent(input, false)],
  ] as const)('answers a signed delivery from %s, a duplicate and a forged one', async (_source, event) => {
    const lines: string[] = [];
    const handler = createLambdaHandler({ secret, log: (line) => lines.push(line) });
    const d = createTestDelivery('message.delivered', { secret, attempt: 2 });
    const first = await handler(event({ headers: d.headers, body: d.body }));
    expect([first.statusCode, first.body]).toEqual([200, '{"received":true}']);
    // Answered after the handlers (Lambda freezes the process after the answer): the line is already there.
    expect(lines).toEqual([
      `message.delivered ${d.event.id}: message ${d.event.data.id} to ${d.event.data.to} (attempt 2)`,
    ]);
    const again = await handler(event({ headers: d.headers, body: d.body, base64: true }));
    expect([again.statusCode, again.body]).toEqual([200, '{"received":true,"duplicate":true}']);
    const forged = createTestDelivery('message.delivered', { secret: 'whsec_not_the_one' });
    expect((await handler(event({ headers: forged.headers, body: forged.body }))).statusCode).toBe(400);
    expect((await handler(event({ method: 'GET', headers: {}, body: '' }))).statusCode).toBe(405);
    // The refusals are logged as warnings; no handler ran for the duplicate or the forged one.
    expect(lines.filter((line) => !line.startsWith('warn: '))).toHaveLength(1);
  });
});

// The Worker module itself (src/worker.ts), bundled with core's Web build as Wrangler's conditions resolve
// it, in workerd through miniflare, without nodejs_compat. Its handlers run after the 200 under
// ctx.waitUntil and log with console.log, which miniflare hands to the test.
describe('examples/cloudflare-workers on workerd', () => {
  const lines: string[] = [];
  let worker: RunningApp | undefined;
  beforeAll(async () => {
    const script = await bundle(`${root}examples/cloudflare-workers/src/worker.ts`, 'web');
    worker = await startWorker(script, [], { SMS_WEBHOOK_SECRET: secret }, (line) => lines.push(line));
  }, 60_000);
  afterAll(() => worker?.stop());
  const post = (d: { headers: Record<string, string>; body: string }) =>
    worker!.fetch('/webhooks/sms', { method: 'POST', headers: d.headers, body: d.body });

  it('accepts a signed delivery (200), runs its typed handler after the answer, and a repeat is a duplicate', async () => {
    const d = createTestDelivery('message.delivered', { secret, attempt: 2 });
    const res = await post(d);
    expect([res.status, await res.text()]).toEqual([200, '{"received":true}']);
    const line = `message.delivered ${d.event.id}: message ${d.event.data.id} to ${d.event.data.to} (attempt 2)`;
    await waitFor(() => lines.includes(line), 'the handler to log the delivery');
    const again = await post(d);
    expect([again.status, await again.json()]).toEqual([200, { received: true, duplicate: true }]);
    expect(lines.filter((l) => l.includes(d.event.id))).toEqual([line]);
  });

  it('refuses a bad signature with 400 signature_mismatch and runs no handler', async () => {
    const forged = createTestDelivery('message.delivered', { secret: 'whsec_not_the_one' });
    const res = await post(forged);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'signature_mismatch' } });
    // A tampered body under a valid signature is refused the same way.
    const d = createTestDelivery('message.delivered', { secret });
    const tampered = await post({
      headers: d.headers,
      body: d.body.replace(d.event.data.to, '+15555550199'),
    });
    expect(tampered.status).toBe(400);
    expect(await tampered.json()).toMatchObject({ error: { code: 'signature_mismatch' } });
    expect(lines.join('\n')).not.toContain(forged.event.id);
    expect(lines.join('\n')).not.toContain(d.event.id);
  });

  it('answers GET on the webhook path 405, /health 200 and any other path 404', async () => {
    expect((await worker!.fetch('/webhooks/sms')).status).toBe(405);
    expect(await (await worker!.fetch('/health')).json()).toEqual({ ok: true });
    expect((await worker!.fetch('/webhooks')).status).toBe(404);
  });
});

/** Collects a child's output and resolves when a line matching `pattern` appears. */
function waitForOutput(
  child: ChildProcess,
  output: { text: string },
  pattern: RegExp,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
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

describe.each(['express', 'fastify', 'koa'])('examples/%s server.ts (its start script)', (name) => {
  it('starts, answers a signed delivery, and on SIGTERM finishes the running handler before exiting 0', async () => {
    // Node with tsx's loader runs the start script's program without the tsx CLI between it and the signal:
    // that CLI relays SIGTERM by killing its child outright (SIGKILL) when the child has not acknowledged the
    // signal within 30 ms, which a loaded machine misses, so the drain this test checks would never be seen.
    const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
      cwd: `${root}examples/${name}`,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        SMS_WEBHOOK_SECRET: secret,
        NODE_ENV: 'test',
        // Handlers wait before logging: without it they finish synchronously and a shutdown that did
        // not drain would pass this test just the same.
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
      const [, port] = await waitForOutput(child, output, /listening on http:\/\/localhost:(\d+)\/webhooks/);
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
});
