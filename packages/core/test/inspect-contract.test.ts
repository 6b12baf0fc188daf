import { MemoryStore } from '@sms-webhooks/core';
import { inspectContract } from '../src/testing/inspect-contract.js';

/** Runs the rows by hand with a runner that records skips, as vitest's and node:test's contexts do. */
async function runRows(makeStore: () => MemoryStore | Omit<MemoryStore, 'inspect'>) {
  const rows: { name: string; fn: (ctx?: unknown) => unknown }[] = [];
  inspectContract('TestStore', makeStore as () => MemoryStore, {
    describe: () => {},
    it: (name, fn) => void rows.push({ name, fn: fn as (ctx?: unknown) => unknown }),
  });
  const skipped: string[] = [];
  for (const row of rows) await row.fn({ skip: (note: string) => skipped.push(note) });
  return { rows, skipped };
}

describe('the inspect rows of the store contract', () => {
  it('skip each row for a store without inspect, naming the store', async () => {
    const { rows, skipped } = await runRows(() => {
      const { claim, complete, release, localKeys } = new MemoryStore();
      return { claim, complete, release, localKeys } as unknown as Omit<MemoryStore, 'inspect'>;
    });
    expect(rows.length).toBeGreaterThan(3);
    // No declared parameter: jest and mocha would take it for a `done` callback and wait for it.
    expect(rows.map((r) => r.fn.length)).toEqual(rows.map(() => 0));
    expect(skipped).toEqual(
      rows.map(() => 'TestStore has no inspect(): the audit cannot read what it holds'),
    );
  });

  it('run every row for a store with inspect, and fail on a wrong answer', async () => {
    expect((await runRows(() => new MemoryStore())).skipped).toEqual([]);
    class Forgetful extends MemoryStore {
      override async inspect() {
        return undefined;
      }
    }
    await expect(runRows(() => new Forgetful())).rejects.toThrow(/in-flight/);
  });
});
