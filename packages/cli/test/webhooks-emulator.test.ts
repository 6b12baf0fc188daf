import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createEmulator, type Emulator } from '@sms-webhooks/emulator';
import { nodeProgram } from '@sms-webhooks/test-helpers/node-program';
import { runCli } from './helpers.js';

describe('sms-webhooks webhooks', () => {
  let emulator: Emulator;
  let env: Record<string, string>;

  beforeEach(async () => {
    emulator = createEmulator({ allowInsecureLoopback: true });
    env = { SMS_API_KEY: 'sk_test_cli', SMS_API_BASE_URL: await emulator.listen() };
  });
  afterEach(() => emulator.close());

  it('create, list, test, deliveries and delete through the emulator', async () => {
    const created = await runCli(
      [
        'webhooks',
        'create',
        '--url',
        'http://127.0.0.1:9/hook',
        '--events',
        'message.sent, webhook.test',
        '--description',
        'cli',
      ],
      env,
    );
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(
      /^Created (wh_\w+) → http:\/\/127\.0\.0\.1:9\/hook\n {2}events: message\.sent, webhook\.test\n {2}secret: whsec_/,
    );
    const id = /Created (wh_\w+)/.exec(created.stdout)![1]!;

    const list = await runCli(['webhooks', 'list', '--json'], env);
    expect(JSON.parse(list.stdout)).toMatchObject({ object: 'list', data: [{ id, description: 'cli' }] });
    expect((await runCli(['webhooks', 'list'], env)).stdout).toMatch(
      new RegExp(`^${id}  http://127.0.0.1:9/hook  \\[message.sent, webhook.test\\]  cli\\n$`),
    );

    const test = await runCli(['webhooks', 'test', id], env);
    expect(test).toMatchObject({ code: 0, stdout: `Test event queued for ${id}.\n` });
    await vi.waitFor(() => expect(emulator.deliveries(id)[0]?.attempts).toBe(1));
    const deliveries = await runCli(['webhooks', 'deliveries', id, '--json'], env);
    expect(JSON.parse(deliveries.stdout).data).toEqual([
      expect.objectContaining({ event_type: 'webhook.test', test: true }),
    ]);
    expect((await runCli(['webhooks', 'deliveries', id], env)).stdout).toMatch(
      // The attempt to port 9 is refused (retrying) or still under way (in_progress): status says pending.
      /^whd_\w+ {2}webhook\.test {6}evt_\w+ {2}(retrying|in_progress) +status=pending attempts=1 last=-/,
    );

    expect(await runCli(['webhooks', 'delete', id], env)).toMatchObject({
      code: 0,
      stdout: `Deleted ${id}.\n`,
    });
    expect((await runCli(['webhooks', 'list'], env)).stdout).toBe('No webhooks.\n');
  });

  it('takes --base-url over SMS_API_BASE_URL', async () => {
    const res = await runCli(['webhooks', 'list', '--base-url', env.SMS_API_BASE_URL!], {
      SMS_API_KEY: 'sk_test_cli',
      SMS_API_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(res).toMatchObject({ code: 0, stdout: 'No webhooks.\n' });
  });

  it.each([
    [
      'no API key',
      ['webhooks', 'list'],
      { SMS_API_BASE_URL: 'http://127.0.0.1:9' },
      /error: set SMS_API_KEY/,
    ],
    [
      'no base URL',
      ['webhooks', 'list'],
      { SMS_API_KEY: 'sk_test_x' },
      /error: no service address: pass --base-url or set SMS_API_BASE_URL/,
    ],
  ])('exits 1 with a clear message for %s', async (_name, argv, environment, message) => {
    const res = await runCli(argv, environment);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(message);
  });

  it('prints the service error with status, code and field details', async () => {
    const missing = await runCli(['webhooks', 'delete', 'wh_missing'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: 404 not_found: No webhook wh_missing/);
    const invalid = await runCli(
      ['webhooks', 'create', '--url', 'http://app.example/x', '--events', 'message.sent'],
      env,
    );
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^error: 422 validation_error: .*\n {2}url: must be an HTTPS URL/);
    const refused = await runCli(['webhooks', 'list'], { ...env, SMS_API_KEY: 'not_a_key' });
    expect(refused.stderr).toMatch(/^error: 401 unauthorized/);
    const badEvents = await runCli(
      ['webhooks', 'create', '--url', 'https://x.test', '--events', 'message.sent,nope'],
      env,
    );
    expect(badEvents.code).toBe(2);
    expect(badEvents.stderr).toMatch(/unknown event type/);
  });
});

describe('sms-webhooks emulator', () => {
  it('runs in-process until its signal aborts, printing its URL as JSON', async () => {
    const controller = new AbortController();
    let output = '';
    let announced: (url: string) => void;
    const url = new Promise<string>((resolve) => {
      announced = resolve;
    });
    const { run } = await import('@sms-webhooks/cli');
    const done = run(['emulator', '--port', '0', '--json'], {
      stdout: (s) => {
        output += s;
        const line = output.split('\n').find((l) => l.startsWith('{"url"'));
        if (line) announced(JSON.parse(line).url);
      },
      stderr: () => {},
      env: {},
      signal: controller.signal,
    });
    const base = await url;
    const token = await fetch(`${base}/v1/auth/token`, {
      method: 'POST',
      headers: { 'x-api-key': 'sk_test_cli' },
    });
    expect(token.status).toBe(200);
    controller.abort();
    expect(await done).toBe(0);
    await expect(fetch(`${base}/v1/auth/token`, { method: 'POST' })).rejects.toThrow();
  });

  it('runs as a real child process: prints the URL and the key hint, serves, stops on SIGINT with exit 0', async () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const child = spawn(
      process.execPath,
      [
        await nodeProgram(join(root, 'packages/cli/src/bin.ts')),
        'emulator',
        '--port',
        '0',
        '--time-scale',
        '1/1000',
      ],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const lines = createInterface({ input: child.stdout! });
    const seen: string[] = [];
    const base = await new Promise<string>((resolve, reject) => {
      lines.on('line', (line) => {
        seen.push(line);
        const match = /listening on (http:\/\/\S+)/.exec(line);
        if (match) resolve(match[1]!);
      });
      child.on('exit', () => reject(new Error(`exited early: ${seen.join('\n')}`)));
    });
    await vi.waitFor(() => expect(seen.some((l) => l.includes('SMS_API_KEY=sk_test_'))).toBe(true));
    const token = await fetch(`${base}/v1/auth/token`, {
      method: 'POST',
      headers: { 'x-api-key': 'sk_test_child' },
    });
    expect((await token.json()).mode).toBe('test');
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 30_000);
});
