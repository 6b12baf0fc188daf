import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEmulator, type Emulator } from '@sms-webhooks/emulator';
import { type CliResult, runCli } from './helpers.js';

/** With --json, stderr must be exactly one JSON line and stdout must stay parseable (or empty). */
function jsonError(res: CliResult): { code: string; message: string; status?: number; details?: unknown } {
  expect(res.stderr.endsWith('\n')).toBe(true);
  expect(res.stderr.trim().split('\n')).toHaveLength(1);
  const parsed = JSON.parse(res.stderr);
  expect(Object.keys(parsed)).toEqual(['error']);
  return parsed.error;
}

describe('--json errors: one JSON object on stderr, same exit codes', () => {
  it('a missing secret: exit 1, code secret_missing, nothing on stdout', async () => {
    const res = await runCli(['sign', 'x', '--json']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(jsonError(res)).toEqual({
      code: 'secret_missing',
      message: expect.stringMatching(/SMS_WEBHOOK_SECRET/),
    });
  });

  it.each([
    [['sign', 'x', '--secret', 's', '--timestamp', 'soon', '--json'], /--timestamp must be an integer/],
    [['send', 'message.sent', '--secret', 's', '--json'], /required option '--url <url>'/],
    [['webhooks', 'list', '--json', '--nope'], /unknown option '--nope'/],
    [['deploy', '--json'], /unknown command 'deploy'/],
    [['webhooks', '--json'], /./],
  ])('a usage mistake %j: exit 2, code usage_error, no commander text', async (argv, message) => {
    const res = await runCli(argv);
    expect(res.code).toBe(2);
    const error = jsonError(res);
    expect(error.code).toBe('usage_error');
    expect(error.message).toMatch(message);
    expect(error.message).not.toMatch(/^error:/);
  });

  it('keeps --help and text-mode errors as they were', async () => {
    expect((await runCli(['sign', '--help', '--json'])).code).toBe(0);
    const text = await runCli(['sign', 'x']);
    expect(text.stderr).toMatch(/^error: a webhook secret is required/);
    // After `--`, "--json" is an argument, not the flag.
    const after = await runCli(['sign', '--', '--json']);
    expect(after.stderr).toMatch(/^error: /);
  });

  describe('service errors', () => {
    let emulator: Emulator;
    let env: Record<string, string>;
    beforeEach(async () => {
      emulator = createEmulator({ allowInsecureLoopback: true });
      env = { SMS_API_KEY: 'sk_test_cli_json', SMS_API_BASE_URL: await emulator.listen() };
    });
    afterEach(() => emulator.close());

    it('carry the service code, status and field details', async () => {
      const missing = await runCli(['webhooks', 'delete', 'wh_missing', '--json'], env);
      expect(missing.code).toBe(1);
      expect(missing.stdout).toBe('');
      expect(jsonError(missing)).toEqual({
        code: 'not_found',
        status: 404,
        message: expect.stringMatching(/wh_missing/),
      });
      const invalid = await runCli(
        ['webhooks', 'create', '--url', 'http://app.example/x', '--events', 'message.sent', '--json'],
        env,
      );
      expect(invalid.code).toBe(1);
      expect(jsonError(invalid)).toMatchObject({
        code: 'validation_error',
        status: 422,
        details: [{ field: 'url', message: expect.stringMatching(/HTTPS/) }],
      });
      const refused = await runCli(['webhooks', 'list', '--json'], { ...env, SMS_API_KEY: 'nope' });
      expect(jsonError(refused)).toMatchObject({ code: 'unauthorized', status: 401 });
    });

    it('a missing API key or an unreachable service', async () => {
      const noKey = await runCli(['webhooks', 'list', '--json'], { SMS_API_BASE_URL: env.SMS_API_BASE_URL });
      expect(jsonError(noKey).code).toBe('api_key_missing');
      const down = await runCli(['webhooks', 'list', '--json', '--base-url', 'http://127.0.0.1:1'], env);
      expect(down.code).toBe(1);
      // No HTTP answer came, so there is no status field.
      expect(jsonError(down)).toEqual({ code: 'network_error', message: expect.any(String) });
    });
  });

  describe('send', () => {
    let server: Server;
    let url: string;
    beforeEach(async () => {
      server = createServer((_req, res) => res.writeHead(500).end('nope'));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    });
    afterEach(() => new Promise<void>((r) => server.close(() => r())));

    it('a non-2xx answer: the result on stdout, the error with the status on stderr, exit 1', async () => {
      const res = await runCli(['send', 'message.sent', '--url', url, '--secret', 's', '--json']);
      expect(res.code).toBe(1);
      expect(JSON.parse(res.stdout)).toMatchObject({ status: 500, body: 'nope' });
      expect(jsonError(res)).toEqual({
        code: 'delivery_not_acknowledged',
        status: 500,
        message: expect.stringMatching(/answered 500/),
      });
    });

    it('no answer at all: code delivery_failed', async () => {
      const res = await runCli([
        'send',
        'message.sent',
        '--url',
        'http://127.0.0.1:1/x',
        '--secret',
        's',
        '--json',
      ]);
      expect(res.code).toBe(1);
      expect(jsonError(res)).toEqual({
        code: 'delivery_failed',
        message: expect.stringMatching(/^could not deliver to http:\/\/127\.0\.0\.1:1\/x: /),
      });
    });
  });
});
