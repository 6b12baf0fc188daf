import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulator } from '@sms-webhooks/emulator';
import { freePort } from '@sms-webhooks/test-helpers/free-port';
import { recordingApp } from '@sms-webhooks/test-helpers/recording-app';
import { startApp } from './receiving-app.js';
import { cli, shell } from './spawn-cli.js';

// Every test spawns the CLI (tsx start-up included), which takes seconds on a loaded two-core machine.
vi.setConfig({ testTimeout: 60_000 });

// The CLI's rough edges from issue 16, each run as a real process; each failed before its fix.

const secret = 'whsec_rough_edges_0123456789abcdef';

describe('a closed pipe (`| head -1`)', () => {
  it.each(['send --help', 'sign --help', 'emulator --help', 'webhooks --help', 'help send', 'listen --help'])(
    '`%s | head -1` prints the first line and no EPIPE stack',
    async (command) => {
      const res = await shell(`$CLI ${command} | head -1`);
      expect(res.stdout).toMatch(/^Usage: sms-webhooks \S+/);
      expect(res.stdout.split('\n')).toHaveLength(2);
      expect(res.stderr).toBe('');
    },
  );
});

describe('usage mistakes', () => {
  it('names an unknown flag instead of the required one it was meant to be (--ulr)', async () => {
    const res = await cli([
      'send',
      'message.sent',
      '--ulr',
      'http://127.0.0.1:9/webhooks',
      '--secret',
      secret,
    ]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/unknown option '--ulr'/);
    expect(res.stderr).toMatch(/Did you mean --url\?/);
    expect(res.stderr).not.toMatch(/required option/);
  });

  it('still says a required option is missing when it is', async () => {
    const res = await cli(['send', 'message.sent', '--secret', secret]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/required option '--url <url>' not specified/);
  });

  it.each([
    ['--id foo', ['--id', 'foo'], /--id.*must be an event id/],
    ['--url not-a-url', ['--url', 'not-a-url'], /--url must be an absolute http\(s\) URL/],
    ['--attempt 0', ['--attempt', '0'], /--attempt must be an integer from 1 to 6/],
    ['--timestamp soon', ['--timestamp', 'soon'], /--timestamp must be an integer/],
  ])('exits 2 for a bad value, as the README says: %s', async (_case, extra, message) => {
    const args = [
      'send',
      'message.sent',
      '--url',
      'http://127.0.0.1:9/webhooks',
      '--secret',
      secret,
      ...extra,
    ];
    const res = await cli(args);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(message);
    const json = await cli([...args, '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr).error.code).toBe('usage_error');
  });

  it.each([
    ['--secret with a trailing space', ['--secret', `${secret} `], {}],
    ['SMS_WEBHOOK_SECRET with a trailing newline', [], { SMS_WEBHOOK_SECRET: `${secret}\n` }],
  ])('refuses %s as createReceiver would, exit 2 and no secret printed', async (_case, extra, env) => {
    for (const command of [
      ['sign', '{}', ...extra],
      ['send', 'message.sent', '--url', 'http://127.0.0.1:9/webhooks', ...extra],
    ]) {
      const res = await cli([...command, '--json'], env);
      expect(res.code).toBe(2);
      expect(JSON.parse(res.stderr).error).toMatchObject({
        code: 'secret_invalid',
        message: expect.stringMatching(/leading or trailing whitespace/),
      });
      expect(res.stdout + res.stderr).not.toContain(secret);
    }
  });
});

describe('talking to the service', () => {
  it('`webhooks list` against a closed port names ECONNREFUSED and the address', async () => {
    const port = await freePort();
    const res = await cli(['webhooks', 'list'], {
      SMS_API_KEY: 'sk_test_closed',
      SMS_API_BASE_URL: `http://127.0.0.1:${port}`,
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`));
    expect(res.stderr).not.toMatch(/fetch failed$/m);
  });

  it('`webhooks delete nope` prints the validation detail once', async () => {
    const emulator = createEmulator();
    const base = await emulator.listen();
    try {
      const res = await cli(['webhooks', 'delete', 'nope'], {
        SMS_API_KEY: 'sk_test_x',
        SMS_API_BASE_URL: base,
      });
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(
        'error: 422 validation_error: Invalid input:\n  webhook_id: must be a webhook id (wh_…)\n',
      );
      expect(res.stderr.match(/webhook_id/g)).toHaveLength(1);
    } finally {
      await emulator.close();
    }
  });
});

describe('send', () => {
  it('--json gives the app answer as JSON, not an escaped string', async () => {
    const app = await recordingApp();
    try {
      const res = await cli(['send', 'message.sent', '--url', app.url, '--secret', secret, '--json']);
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout).body).toEqual({ received: true });
    } finally {
      await app.close();
    }
  });

  it('--id sent twice carries the same bytes, with the next attempt number, as a real redelivery', async () => {
    const app = await recordingApp();
    try {
      const args = [
        'send',
        'message.delivered',
        '--url',
        app.url,
        '--secret',
        secret,
        '--id',
        `evt_again${Date.now()}`,
      ];
      expect((await cli(args)).code).toBe(0);
      expect((await cli(args)).code).toBe(0);
      const [first, second] = app.requests;
      expect(second!.body).toBe(first!.body);
      expect([
        first!.headers['x-service-delivery-attempt'],
        second!.headers['x-service-delivery-attempt'],
      ]).toEqual(['1', '2']);
      const changed = await cli([args[0]!, 'message.failed', ...args.slice(2)]);
      expect(changed.code).toBe(2);
      expect(changed.stderr).toMatch(/was sent as message\.delivered/);
    } finally {
      await app.close();
    }
  });

  it('--timestamp signs with an old time: a stale delivery the receiver refuses', async () => {
    const app = await startApp(secret);
    try {
      const stale = String(Math.floor(Date.now() / 1000) - 600);
      const res = await cli([
        'send',
        'message.sent',
        '--url',
        app.url,
        '--secret',
        secret,
        '--timestamp',
        stale,
        '--json',
      ]);
      expect(res.code).toBe(1);
      expect(JSON.parse(res.stdout).body.error.code).toBe('timestamp_out_of_tolerance');
      expect(JSON.parse(res.stderr).error).toMatchObject({ code: 'delivery_not_acknowledged', status: 400 });
    } finally {
      await app.close();
    }
  });
});

describe('the state file', () => {
  it('send still sends when it cannot be written, with a warning; --id needs it readable', async () => {
    const app = await recordingApp();
    try {
      // Under a regular file, so no directory can be made for it.
      const file = join(mkdtempSync(join(tmpdir(), 'sms-webhooks-state-')), 'a-file');
      writeFileSync(file, '');
      const unwritable = join(file, 'state.json');
      const res = await cli(['send', 'message.sent', '--url', app.url, '--secret', secret], {
        SMS_WEBHOOKS_STATE_FILE: unwritable,
      });
      expect(res.code).toBe(0);
      expect(res.stderr).toMatch(
        /^warning: cannot write the state file .* \(a later send --id evt_\w+ cannot repeat it\)$/m,
      );
      expect(app.requests).toHaveLength(1);
      const repeat = await cli(
        ['send', 'message.sent', '--url', app.url, '--secret', secret, '--id', 'evt_x', '--json'],
        {
          SMS_WEBHOOKS_STATE_FILE: unwritable,
        },
      );
      expect(repeat.code).toBe(1);
      expect(JSON.parse(repeat.stderr).error.code).toBe('state_unreadable');
      expect(app.requests).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});
