import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReceiver, type Receiver, signPayload } from '@sms-webhooks/core';
import { runCli } from './helpers.js';

const secret = 'whsec_cli_tests_0123456789abcdef';

describe('sms-webhooks sign', () => {
  it('prints the header value signPayload gives, which verifies', async () => {
    const body = '{"id":"evt_1","object":"event"}';
    const res = await runCli(['sign', body, '--secret', secret, '--timestamp', '1700000000']);
    expect(res).toEqual({
      code: 0,
      stdout: `${signPayload(body, secret, { timestamp: 1700000000 })}\n`,
      stderr: '',
    });
  });

  it('signs a file, reads the secret from SMS_WEBHOOK_SECRET, prints JSON with --json', async () => {
    const path = join(tmpdir(), `sms-webhooks-sign-${process.pid}.json`);
    const body = '{"a": 1}\n';
    await writeFile(path, body);
    const res = await runCli(
      ['sign', '--file', path, '--json'],
      { SMS_WEBHOOK_SECRET: secret },
      {
        readFile: async (p) => (await import('node:fs/promises')).readFile(p, 'utf8'),
      },
    );
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out.header).toBe(signPayload(body, secret, { timestamp: out.timestamp }));
  });

  it('signs standard input when no payload is given', async () => {
    const res = await runCli(
      ['sign', '--secret', secret, '--timestamp', '5'],
      {},
      { readStdin: async () => 'raw' },
    );
    expect(res.stdout).toBe(`${signPayload('raw', secret, { timestamp: 5 })}\n`);
  });

  it('fails with a clear message and no output when the secret is missing', async () => {
    const res = await runCli(['sign', 'x']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/error: a webhook secret is required.*SMS_WEBHOOK_SECRET/);
  });

  it('refuses a bad --timestamp as a usage error (exit 2)', async () => {
    const res = await runCli(['sign', 'x', '--secret', secret, '--timestamp', 'soon']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--timestamp must be an integer/);
  });
});

describe('sms-webhooks send', () => {
  let server: Server;
  let url: string;
  let receiver: Receiver;

  beforeEach(async () => {
    receiver = createReceiver({ secret, respond: 'after-handlers', logger: { warn() {}, error() {} } });
    server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const out = await receiver.handle({ rawBody: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(out.status, out.headers).end(out.body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  });
  afterEach(() => new Promise<void>((r) => server.close(() => r())));

  it('delivers a signed, typed sample event that the receiver accepts', async () => {
    const seen: string[] = [];
    receiver.on('message.delivered', (event, ctx) => void seen.push(`${event.data.to} ${ctx.attempt}`));
    const res = await runCli([
      'send',
      'message.delivered',
      '--url',
      url,
      '--secret',
      secret,
      '--attempt',
      '3',
      '--data',
      '{"to":"+15555550199"}',
    ]);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(
      /^message\.delivered evt_\w+ attempt 3 → http:\/\/127\.0\.0\.1:\d+\/webhooks: 200 \{"received":true\}\n$/,
    );
    expect(seen).toEqual(['+15555550199 3']);
  });

  it('reuses --id to show duplicate handling, and prints the answer as JSON with --json', async () => {
    receiver.on('sms.completed', () => {});
    const args = ['send', 'sms.completed', '--url', url, '--secret', secret, '--id', 'evt_cli1', '--json'];
    expect(JSON.parse((await runCli(args)).stdout)).toEqual({
      event_id: 'evt_cli1',
      type: 'sms.completed',
      attempt: 1,
      status: 200,
      body: { received: true },
    });
    expect(JSON.parse((await runCli(args)).stdout)).toMatchObject({
      attempt: 2,
      body: { received: true, duplicate: true },
    });
  });

  it('exits 1 when the app refuses the delivery (here: a different secret)', async () => {
    const res = await runCli(['send', 'message.sent', '--url', url, '--secret', 'whsec_other_secret_value']);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/400 .*signature_mismatch/);
    expect(res.stderr).toMatch(/error: the app answered 400, not 2xx/);
  });

  it('exits 1 with a clear message when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    const res = await runCli([
      'send',
      'message.sent',
      '--url',
      `http://127.0.0.1:${port}/webhooks`,
      '--secret',
      secret,
    ]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /error: could not deliver to http:\/\/127\.0\.0\.1:(\d+)\/webhooks: connect ECONNREFUSED 127\.0\.0\.1:\1\n/,
    );
  });

  it.each([
    [['send', 'message.exploded', '--url', 'http://x', '--secret', 's'], /unknown event type/],
    [['send', 'message.sent', '--secret', 's'], /required option '--url <url>'/],
    [
      ['send', 'message.sent', '--url', 'http://x', '--secret', 's', '--data', '[1]'],
      /must be a JSON object/,
    ],
    [
      ['send', 'message.sent', '--url', 'http://x', '--secret', 's', '--attempt', '7'],
      /--attempt must be an integer from 1 to 6/,
    ],
  ])('refuses bad arguments with exit 2: %j', async (argv, message) => {
    const res = await runCli(argv);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(message);
  });

  it('never prints the secret', async () => {
    receiver.on('message.sent', () => {});
    const res = await runCli(['send', 'message.sent', '--url', url, '--secret', secret, '--json']);
    expect(res.stdout + res.stderr).not.toContain(secret);
  });
});

describe('--help', () => {
  it.each([
    [[]],
    [['emulator']],
    [['sign']],
    [['send']],
    [['webhooks']],
    [['webhooks', 'create']],
    [['webhooks', 'list']],
    [['webhooks', 'delete']],
    [['webhooks', 'deliveries']],
    [['webhooks', 'test']],
  ])('prints usage for %j and exits 0', async (argv) => {
    const res = await runCli([...argv, '--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Usage: sms-webhooks/);
  });

  it('exits 2 for an unknown command', async () => {
    const res = await runCli(['deploy']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/unknown command 'deploy'/);
  });
});
