import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDelivery } from '@sms-webhooks/core';
import { spawnFixture } from '@sms-webhooks/test-helpers/fixture-process';
import { afterAll, describe, expect, it } from 'vitest';
import { runPool } from './helpers/pool.js';
import { report } from './helpers/scale.js';

const SECRET = 'whsec_shutdown_test_secret_0b1c2d';
const IN_FLIGHT = 500;
const dir = mkdtempSync(join(tmpdir(), 'sms-webhooks-shutdown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function startAndFill(name: string, slowCount: number, env: Record<string, string> = {}) {
  const completions = join(dir, `${name}.log`);
  const app = await spawnFixture(new URL('./fixtures/shutdown-server.ts', import.meta.url), {
    WEBHOOK_SECRET: SECRET,
    COMPLETIONS_FILE: completions,
    ...env,
  });
  const { port } = (await app.waitFor((m) => typeof m.port === 'number')) as { port: number };
  const deliveries = Array.from({ length: IN_FLIGHT }, (_, i) =>
    createTestDelivery('message.delivered', {
      secret: SECRET,
      data: { metadata: { speed: i < slowCount ? 'slow' : 'fast' } },
    }),
  );
  const statuses: number[] = [];
  await runPool(deliveries, 50, async (d) => {
    const res = await fetch(`http://127.0.0.1:${port}/webhooks`, {
      method: 'POST',
      headers: d.headers,
      body: d.body,
    });
    statuses.push(res.status);
    await res.arrayBuffer();
  });
  return { app, deliveries, statuses, completions };
}

function completed(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

describe('shutdown of a real process (SIGTERM), respond: immediately', () => {
  it(`finishes all ${IN_FLIGHT} in-flight handlers before it exits`, async () => {
    const { app, deliveries, statuses, completions } = await startAndFill('all', 0);
    expect(statuses).toEqual(Array(IN_FLIGHT).fill(200));
    // Every event was acknowledged and none has finished: they all hold until the signal.
    expect(completed(completions)).toEqual([]);

    const started = performance.now();
    app.child.kill('SIGTERM');
    const signal = await app.waitFor((m) => m.signal === 'SIGTERM');
    const { code } = await app.exited;
    const ms = Math.round(performance.now() - started);

    expect(signal.handlersStarted).toBe(IN_FLIGHT);
    expect(code).toBe(0);
    expect(app.messages.find((m) => m.drained)).toEqual({ drained: true, unfinished: [] });
    const done = completed(completions);
    expect(new Set(done).size).toBe(done.length);
    expect(new Set(done)).toEqual(new Set(deliveries.map((d) => d.event.id)));
    report('shutdown drain', {
      inFlight: IN_FLIGHT,
      completed: done.length,
      lost: IN_FLIGHT - done.length,
      ms,
    });
  }, 60_000);

  it('with a drain time-out, reports exactly the unfinished handlers by event id (and logs them)', async () => {
    const slow = 40;
    const { app, deliveries, statuses, completions } = await startAndFill('timeout', slow, {
      DRAIN_TIMEOUT_MS: '3000',
    });
    expect(statuses).toEqual(Array(IN_FLIGHT).fill(200));

    app.child.kill('SIGTERM');
    const { code } = await app.exited;
    expect(code).toBe(0);

    const slowIds = deliveries.slice(0, slow).map((d) => d.event.id);
    const fastIds = deliveries.slice(slow).map((d) => d.event.id);
    const drained = app.messages.find((m) => m.drained) as { unfinished: string[] };
    expect(new Set(drained.unfinished)).toEqual(new Set(slowIds));
    expect(drained.unfinished).toHaveLength(slow);
    expect(new Set(completed(completions))).toEqual(new Set(fastIds));
    // The receiver's own log line names them too, so an operator can find them after the exit.
    const log = app.stderr();
    expect(log).toContain(`${slow} handler run(s) unfinished`);
    for (const id of slowIds) expect(log).toContain(id);
    report('shutdown drain time-out', {
      inFlight: IN_FLIGHT,
      completed: fastIds.length,
      reportedUnfinished: drained.unfinished.length,
    });
  }, 60_000);
});
