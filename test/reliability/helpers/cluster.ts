import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDelivery, type TestDelivery } from '@sms-webhooks/core';
import { type FixtureProcess, spawnFixture } from '@sms-webhooks/test-helpers/fixture-process';

export interface Instance {
  name: string;
  port: number;
  fixture: FixtureProcess;
  handledFile: string;
}

export interface Cluster {
  instances: Instance[];
  dir: string;
  /** SIGTERM each live instance and wait for it to drain and exit. */
  stop(): Promise<void>;
  /** Every handled event id, from every instance's file (killed ones included), with repeats. */
  handled(): string[];
  cleanup(): void;
}

/** N app instances (separate processes) sharing one Redis. */
export async function startCluster(count: number, env: Record<string, string>): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'sms-webhooks-cluster-'));
  const instances = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const name = String.fromCharCode(97 + i);
      const handledFile = join(dir, `handled-${name}.log`);
      const fixture = await spawnFixture(new URL('../fixtures/redis-instance.ts', import.meta.url), {
        ...env,
        HANDLED_FILE: handledFile,
      });
      const { port } = (await fixture.waitFor((m) => typeof m.port === 'number', 30_000)) as { port: number };
      return { name, port, fixture, handledFile };
    }),
  );
  const read = (file: string) => {
    try {
      return readFileSync(file, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  return {
    instances,
    dir,
    async stop() {
      await Promise.all(
        instances.map(async ({ fixture }) => {
          if (fixture.child.exitCode !== null || fixture.child.signalCode !== null) return;
          fixture.child.kill('SIGTERM');
          await fixture.exited;
        }),
      );
    },
    handled: () => instances.flatMap((i) => read(i.handledFile)),
    cleanup() {
      for (const { fixture } of instances) fixture.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Tally {
  events: number;
  sends: number;
  /** HTTP requests made, retries included. */
  attempts: number;
  statuses: Map<number | 'network', number>;
  /** How many sends needed 1, 2, … 6 attempts (a send that failed all 6 counts under 6). */
  attemptsPerSend: Map<number, number>;
  /** The most attempts any one send used: the spec allows 6. */
  maxAttempts: number;
  /** Sends that got no 2xx in 6 attempts: the service would give up on them (lost events). */
  gaveUp: number;
}

export function newTally(events: number, sends: number): Tally {
  return {
    events,
    sends,
    attempts: 0,
    statuses: new Map(),
    attemptsPerSend: new Map(),
    maxAttempts: 0,
    gaveUp: 0,
  };
}

export function countStatus(tally: Tally, status: number | 'network'): void {
  tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
}

/** Handled ids against the unique ids sent: lost, handled twice, and strays that were never sent. */
export function reconcile(sent: string[], handled: string[]) {
  const unique = new Set(sent);
  const seen = new Map<string, number>();
  for (const id of handled) seen.set(id, (seen.get(id) ?? 0) + 1);
  return {
    unique: unique.size,
    handled: handled.length,
    lost: [...unique].filter((id) => !seen.has(id)).length,
    handledTwice: [...seen.values()].filter((n) => n > 1).length,
    strays: [...seen.keys()].filter((id) => !unique.has(id)).length,
  };
}

/** Each event once, plus a share of them again at another instance, all shuffled together. */
export function buildSends(events: number, instances: number, duplicateShare: number, secret: string) {
  const deliveries: TestDelivery<'message.delivered'>[] = Array.from({ length: events }, () =>
    createTestDelivery('message.delivered', { secret }),
  );
  const sends = deliveries.map((d, i) => ({ d, first: i % instances }));
  for (let i = 0; i < Math.round(events * duplicateShare); i++) {
    sends.push({ d: deliveries[i]!, first: (i + 1) % instances });
  }
  for (let i = sends.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [sends[i], sends[j]] = [sends[j]!, sends[i]!];
  }
  return { deliveries, sends };
}
