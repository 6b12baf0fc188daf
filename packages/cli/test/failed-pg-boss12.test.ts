import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { createWorker as pgBossWorker } from '@sms-webhooks/pg-boss';
import { captureLogger, waitFor } from '@sms-webhooks/test-helpers';
import { handOffReceiver, MAJORS, secret, useDatabase } from '../../pg-boss/test/set-up.js';
import { runCli } from './helpers.js';

// An app whose node_modules holds pg-boss 12: the CLI's own `import('pg-boss')` gets the real pg-boss 12,
// which exports its class only as the named `PgBoss` (10's default export is gone). The file's set-up
// uses 12 alone. pg-boss 12 needs Node 22.12 or later: `.ci/run` runs this file on Node 22 and 24.
vi.mock('pg-boss', async () => ({ ...(await import('pg-boss12')) }));

const major12 = MAJORS.find((m) => m.major === 12);

describe.skipIf(major12 === undefined)('sms-webhooks failed with pg-boss 12', () => {
  const db = useDatabase('cli_failed', major12!);

  it('lists the failed event, as text and as --json', async () => {
    const boss = await db.boss();
    const store = await db.store();
    await boss.createQueue('sms-webhooks');
    const { receiver } = handOffReceiver(boss, store, {
      queue: 'sms-webhooks',
      enqueue: { attempts: 2, retryDelaySeconds: 0, retryBackoff: false },
    });
    const workerSide = createReceiver({ secret, store, logger: captureLogger() });
    workerSide.on('message.delivered', () => {
      throw new Error('downstream is down');
    });
    const worker = await pgBossWorker(workerSide, boss, { pollingIntervalSeconds: 0.5 });
    db.onCleanup(() => worker.close());
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);

    const json = async () => {
      const out = await runCli(['failed', 'list', '--database-url', db.url, '--json']);
      expect(out).toMatchObject({ code: 0, stderr: '' });
      return JSON.parse(out.stdout) as unknown[];
    };
    await waitFor(async () => (await json()).length === 1, 'the job to fail for good');
    expect(await json()).toMatchObject([
      { eventId: d.event.id, type: 'message.delivered', attempts: 2, archived: false },
    ]);
    const text = await runCli(['failed', 'list', '--engine', 'pg-boss'], { DATABASE_URL: db.url });
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(
      new RegExp(
        `^1 failed event\\(s\\):\\n${d.event.id}  message.delivered  2 attempt\\(s\\) .*downstream is down`,
      ),
    );
  });
});
