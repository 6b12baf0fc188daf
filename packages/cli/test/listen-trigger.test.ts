import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulator } from '@sms-webhooks/emulator';
import { type App, startApp } from './receiving-app.js';
import { cli, type Running, start } from './spawn-cli.js';

// Every test spawns the CLI (tsx start-up included), which takes seconds on a loaded two-core machine.
vi.setConfig({ testTimeout: 60_000 });

// `listen`, `trigger` and `resend` as a user runs them: real processes, a real emulator, a real app.

const READY = /^export SMS_WEBHOOK_SECRET=(whsec_\S+)$/;
const API_BASE = /^ {2}emulator (http:\/\/\S+) /;

let running: Running[] = [];
let apps: App[] = [];
afterEach(async () => {
  await Promise.all(running.map((r) => r.interrupt()));
  await Promise.all(apps.map((a) => a.close()));
  running = [];
  apps = [];
});

function listen(args: string[], env: Record<string, string> = {}): Running {
  const r = start(['listen', ...args], env);
  running.push(r);
  return r;
}

async function app(secret: string, options?: Parameters<typeof startApp>[1]): Promise<App> {
  const a = await startApp(secret, options);
  apps.push(a);
  return a;
}

const freshStateFile = () => join(mkdtempSync(join(tmpdir(), 'sms-webhooks-listen-')), 'state.json');

describe('sms-webhooks listen', () => {
  it('starts an emulator, prints the secret to paste, streams deliveries, and stops on Ctrl-C', async () => {
    const stateFile = freshStateFile();
    // The app's address is known before its secret: listen first, then the app, as a user would.
    const placeholder = await app('whsec_placeholder');
    const url = placeholder.url;
    await placeholder.close();
    apps = [];
    const l = listen([
      '--forward-to',
      url,
      '--port',
      '0',
      '--time-scale',
      '1/1000',
      '--state-file',
      stateFile,
    ]);
    const [, secret] = await l.waitFor(READY);
    const [, apiBase] = await l.waitFor(API_BASE);
    const a = await app(secret!, { port: Number(new URL(url).port) });

    const triggered = await cli(['trigger', 'message.delivered', '--api-base', apiBase!]);
    expect(triggered.code).toBe(0);
    expect(triggered.stdout).toMatch(/^Triggered message\.delivered \(send sms_\w+\):\n {2}message\.sent/);
    await l.waitFor(/^\d\d:\d\d:\d\d {2}message\.delivered\s+evt_\w+\s+attempt 1\s+→ 200 \(\d+ ms\)$/);
    await vi.waitFor(() => expect(a.handled.map((h) => h.split(' ')[0])).toContain('message.delivered'));

    // The state file keeps the secret, readable by its owner only.
    expect(JSON.parse(readFileSync(stateFile, 'utf8')).webhook_secret).toBe(secret);
    expect(statSync(stateFile).mode & 0o077).toBe(0);

    expect(await l.interrupt()).toBe(0);
    await expect(fetch(`${apiBase}/_emulator/health`)).rejects.toThrow();
  });

  it('keeps the secret across restarts (state file), and --secret sets it', async () => {
    const stateFile = freshStateFile();
    const a = await app('whsec_unused');
    const first = listen(['--forward-to', a.url, '--port', '0', '--state-file', stateFile]);
    const [, secret] = await first.waitFor(READY);
    expect(await first.interrupt()).toBe(0);
    const second = listen(['--forward-to', a.url, '--port', '0', '--state-file', stateFile]);
    expect((await second.waitFor(READY))[1]).toBe(secret);
    await second.interrupt();
    const chosen = listen(['--forward-to', a.url, '--port', '0', '--secret', 'whsec_chosen_one']);
    expect((await chosen.waitFor(READY))[1]).toBe('whsec_chosen_one');
  });

  it('streams a failed attempt with its next retry, then the retry, and resend carries the next attempt', async () => {
    const stateFile = freshStateFile();
    const secret = 'whsec_listen_retry_0123456789';
    const a = await app(secret, { failFirst: 1 });
    const l = listen([
      '--forward-to',
      a.url,
      '--port',
      '0',
      '--time-scale',
      '1/1000',
      '--secret',
      secret,
      '--events',
      'message.failed',
      '--state-file',
      stateFile,
    ]);
    const [, apiBase] = await l.waitFor(API_BASE);
    const triggered = await cli(['trigger', 'message.failed', '--api-base', apiBase!, '--json']);
    expect(triggered.code).toBe(0);
    const failed = JSON.parse(triggered.stdout).events.find(
      (e: { type: string }) => e.type === 'message.failed',
    );
    await l.waitFor(
      new RegExp(
        `message\\.failed\\s+${failed.id}\\s+attempt 1\\s+→ 500 \\(\\d+ ms\\)\\s+next retry \\d\\d:\\d\\d:\\d\\d \\(attempt 2\\)$`,
      ),
    );
    await l.waitFor(new RegExp(`${failed.id}\\s+attempt 2\\s+→ 200`));
    const resent = await cli(['resend', failed.id, '--api-base', apiBase!]);
    expect(resent.code).toBe(0);
    expect(resent.stdout).toMatch(new RegExp(`^Resent message\\.failed ${failed.id} as attempt 3 `));
    await l.waitFor(new RegExp(`${failed.id}\\s+attempt 3\\s+→ 200`));
    // The app saw the same event at attempts 2 and 3 (the first was refused before its receiver).
    await vi.waitFor(() => expect(a.handled).toContain(`message.failed ${failed.id} 2`));
    const withoutSubscriber = await cli(['trigger', 'sms.completed', '--api-base', apiBase!]);
    expect(withoutSubscriber.code).toBe(1);
    expect(withoutSubscriber.stderr).toMatch(/no webhook .* subscribes to sms\.completed/);
  });

  it('--json prints the ready line and each attempt as JSON lines', async () => {
    const secret = 'whsec_listen_json_0123456789';
    const a = await app(secret);
    const l = listen(['--forward-to', a.url, '--port', '0', '--secret', secret, '--json']);
    const [readyLine] = await l.waitFor(/^\{"ready":true.*$/);
    const ready = JSON.parse(readyLine!);
    expect(ready).toMatchObject({ forward_to: a.url, secret, webhook_id: expect.stringMatching(/^wh_/) });
    expect(ready.events).toContain('webhook.test');
    expect((await cli(['trigger', 'webhook.test', '--api-base', ready.api_base])).code).toBe(0);
    const [attemptLine] = await l.waitFor(/^.*"type":"webhook\.test".*$/);
    expect(JSON.parse(attemptLine!)).toMatchObject({
      type: 'webhook.test',
      event_id: expect.stringMatching(/^evt_/),
      attempt: 1,
      status: 200,
      delivered: true,
      latency_ms: expect.any(Number),
      next_attempt_at: null,
    });
  });

  it('--api-base attaches to a running emulator, streams its attempts, and removes its webhook on Ctrl-C', async () => {
    const secret = 'whsec_fixed_by_the_emulator_01';
    const emulator = start(['emulator', '--port', '0', '--webhook-secret', secret, '--time-scale', '1/1000']);
    running.push(emulator);
    const [, base] = await emulator.waitFor(/listening on (http:\/\/\S+)/);
    const a = await app(secret);
    const l = listen(['--forward-to', a.url, '--api-base', base!]);
    expect((await l.waitFor(READY))[1]).toBe(secret);
    expect((await cli(['trigger', 'message.sent', '--api-base', base!])).code).toBe(0);
    await l.waitFor(/message\.sent\s+evt_\w+\s+attempt 1\s+→ 200/);
    expect(await l.interrupt()).toBe(0);
    const list = await cli(['webhooks', 'list', '--json'], {
      SMS_API_KEY: 'sk_test_local',
      SMS_API_BASE_URL: base!,
    });
    expect(JSON.parse(list.stdout).data).toEqual([]);
  });

  it('says so, with the address, when nothing runs at --api-base; and when the port is taken', async () => {
    const emulator = createEmulator();
    const base = await emulator.listen();
    await emulator.close();
    const attach = await cli([
      'listen',
      '--forward-to',
      'http://127.0.0.1:3000/webhooks',
      '--api-base',
      base,
    ]);
    expect(attach.code).toBe(1);
    expect(attach.stderr).toMatch(new RegExp(`cannot reach the emulator at ${base}: connect ECONNREFUSED`));
    const trigger = await cli(['trigger', 'message.sent', '--api-base', base]);
    expect(trigger.code).toBe(1);
    expect(trigger.stderr).toMatch(/ECONNREFUSED/);

    const taken = createEmulator();
    const port = new URL(await taken.listen()).port;
    try {
      const res = await cli(['listen', '--forward-to', 'http://127.0.0.1:3000/webhooks', '--port', port]);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/EADDRINUSE.*--api-base/);
    } finally {
      await taken.close();
    }
  });
});
