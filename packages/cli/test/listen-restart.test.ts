import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './helpers.js';
import { listenInProcess } from './in-process-listen.js';
import { type App, startApp } from './receiving-app.js';

// Issue 25, point 6: restarting `listen` dropped the retries it had scheduled without a word, and
// `resend <evt>` then answered `no such event was sent`. The events and their retries are kept in the
// state file and taken up by the next `listen`.

const API_BASE = /^ {2}emulator (http:\/\/\S+) /;
const SECRET = 'whsec_listen_restart_0123456789';

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('listen across a restart', () => {
  it('delivers the retry it had scheduled, and resend still knows the event', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'sms-webhooks-restart-')), 'state.json');
    // Refuses the first delivery, so the emulator schedules a retry 1 min × 1/20 = 3 s out.
    app = await startApp(SECRET, { failFirst: 1 });
    const args = ['--forward-to', app.url, '--port', '0', '--secret', SECRET, '--state-file', stateFile];
    const first = listenInProcess([...args, '--time-scale', '1/20', '--events', 'message.failed']);
    const [, apiBase] = await first.waitFor(API_BASE);
    const triggered = await runCli(['trigger', 'message.failed', '--api-base', apiBase!, '--json']);
    expect(triggered.code).toBe(0);
    const id: string = JSON.parse(triggered.stdout).events.find(
      (e: { type: string }) => e.type === 'message.failed',
    ).id;
    await first.waitFor(new RegExp(`${id}\\s+attempt 1\\s+→ 500 .*next retry`));
    expect(await first.stop()).toBe(0);
    // The premise: the retry was still scheduled when listen stopped, so it was not delivered.
    expect(app.handled).toEqual([]);

    // A new run at a fast scale: the retry keeps its due time (within 3 s), on the new run's webhook.
    const second = listenInProcess([...args, '--time-scale', '1/1000', '--events', 'message.failed']);
    const [, apiBase2] = await second.waitFor(API_BASE);
    try {
      await second.waitFor(
        /^Took up 1 event from the last run \(1 retry scheduled, next at [\d:]{8}\)/,
        5_000,
      );
      await second.waitFor(new RegExp(`${id}\\s+attempt 2\\s+→ 200`));
      await vi.waitFor(() => expect(app!.handled).toContain(`message.failed ${id} 2`));
      const resent = await runCli(['resend', id, '--api-base', apiBase2!]);
      expect(resent.stderr).toBe('');
      expect(resent.stdout).toMatch(new RegExp(`^Resent message\\.failed ${id} as attempt 3 `));
      // The app's dedupe store answers the repeat 200 `duplicate` without calling its handler again.
      await second.waitFor(new RegExp(`${id}\\s+attempt 3\\s+→ 200`));
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });
});

describe('listen with a state file it cannot use', () => {
  it('still runs with --secret, and warns once that a restart will not take up the retries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sms-webhooks-restart-'));
    // A path under a regular file: neither readable nor writable, even as root.
    const blocked = join(dir, 'state.json');
    writeFileSync(blocked, '{}');
    app = await startApp(SECRET, { failFirst: 1 });
    const listen = listenInProcess([
      '--forward-to',
      app.url,
      '--port',
      '0',
      '--secret',
      SECRET,
      '--time-scale',
      '1/1000',
      '--events',
      'webhook.test',
      '--state-file',
      join(blocked, 'state.json'),
    ]);
    try {
      const [, apiBase] = await listen.waitFor(API_BASE);
      expect((await runCli(['trigger', 'webhook.test', '--api-base', apiBase!])).code).toBe(0);
      await listen.waitFor(/webhook\.test\s+evt_\w+\s+attempt 2\s+→ 200/);
      const warnings = listen.stderr().match(/a restart will not take up the retries/g) ?? [];
      expect(warnings).toHaveLength(1);
    } finally {
      expect(await listen.stop()).toBe(0);
    }
  });
});
