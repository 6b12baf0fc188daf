import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReceiver, MemoryStore } from '@sms-webhooks/core';
import { VirtualClock } from '@sms-webhooks/core/testing';
import { createEmulator } from '@sms-webhooks/emulator';
import { captureLogger, waitFor } from '@sms-webhooks/test-helpers';
import { receiverServer } from './app-process.js';
import { runCli } from './helpers.js';

// `webhooks rotate` and `webhooks retire` with an event the old webhook is still retrying: the emulator
// plays the retry schedule on a VirtualClock; the CLI's own waits are real and short.

it('rotate keeps the old webhook while it retries an event (exit 3), and retire deletes it once delivered', async () => {
  const clock = new VirtualClock();
  const emulator = createEmulator({ allowInsecureLoopback: true, clock });
  const env = { SMS_API_KEY: 'sk_test_rotate_cli', SMS_API_BASE_URL: await emulator.listen() };
  const secretFile = join(mkdtempSync(join(tmpdir(), 'sms-webhooks-rotate-')), 'next');
  const store = new MemoryStore({ now: () => clock.now() });
  let databaseDown = true;
  const secrets: string[] = [];
  // The app reads the secrets as deliveries come (see docs/operations.md): the new one from the file.
  const receiver = createReceiver({
    tenant: () => 'app',
    secret: () => {
      let next: string[] = [];
      try {
        next = [readFileSync(secretFile, 'utf8').trim()];
      } catch {}
      return [...secrets, ...next];
    },
    secretCache: false,
    store,
    clock,
    respond: 'after-handlers',
    logger: captureLogger(),
  }).on('message.delivered', () => {
    if (databaseDown) throw new Error('database is down');
  });
  const app = await receiverServer(receiver);
  try {
    const url = app.url;
    const old = JSON.parse(
      (
        await runCli(
          ['webhooks', 'create', '--url', url, '--events', 'message.delivered,webhook.test', '--json'],
          env,
        )
      ).stdout,
    ) as { id: string; secret: string };
    secrets.push(old.secret);
    const [event] = emulator.emit('message.delivered');
    await waitFor(
      () => emulator.deliveries(old.id).some((d) => d.last_status_code === 500),
      'the first attempt to be answered 500',
    );
    databaseDown = false;

    const rotated = await runCli(
      ['webhooks', 'rotate', old.id, '--secret-file', secretFile, '--retry', '50ms', '--drain-timeout', '0'],
      env,
    );
    expect(rotated.code).toBe(3);
    const replacement = emulator.webhooks().find((w) => w.id !== old.id)!;
    expect(emulator.webhooks().map((w) => w.id)).toContain(old.id);
    expect(rotated.stdout).toContain(`${old.id} is kept: it still retries 1 event(s)`);
    expect(rotated.stdout).toMatch(
      new RegExp(`^  ${event!.id}  message\\.delivered  attempt 1, last answer 500, next \\S+Z$`, 'm'),
    );
    expect(rotated.stdout).toContain(
      `sms-webhooks webhooks retire ${old.id} --replacement ${replacement.id}`,
    );
    expect(rotated.stderr).toMatch(/error: rotation is not finished/);
    expect(rotated.stdout + rotated.stderr).not.toContain(replacement.secret);
    // The app accepted the probe: the service recorded one test delivery through the replacement, accepted.
    expect(
      emulator
        .deliveries(replacement.id)
        .filter((d) => d.test)
        .map((d) => d.last_status_code),
    ).toEqual([200]);

    const early = await runCli(
      ['webhooks', 'retire', old.id, '--replacement', replacement.id, '--json'],
      env,
    );
    expect(early.code).toBe(3);
    expect(JSON.parse(early.stdout)).toMatchObject({ deleted: false, waitingFor: [{ eventId: event!.id }] });
    expect(JSON.parse(early.stderr)).toMatchObject({ error: { code: 'webhook_busy' } });

    await clock.advance(60_000); // the old webhook's retry, accepted now
    await waitFor(
      () => emulator.deliveries(old.id).some((d) => d.event_id === event!.id && d.delivered_at !== null),
      'the retry to be delivered',
    );
    const retired = await runCli(['webhooks', 'retire', old.id, '--replacement', replacement.id], env);
    expect(retired).toMatchObject({ code: 0, stdout: `Deleted ${old.id}: it had no delivery pending.\n` });
    expect(emulator.webhooks().map((w) => w.id)).toEqual([replacement.id]);
  } finally {
    await emulator.close();
    await app.close();
  }
});
