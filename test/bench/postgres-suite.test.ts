import { TINY } from './profiles.js';
import { runSuite, SUITE_IDS } from './suites/index.js';

// The postgres benchmark's own code on tiny inputs, as bench-smoke.test.ts does for the others: only
// that it reports, and the one bar that does not depend on timing.
it('the postgres bench suite reports every store, and one round trip before the response', async () => {
  expect(SUITE_IDS).toContain('postgres');
  const result = await runSuite('postgres', TINY);
  expect(result.notes.filter((n) => n.startsWith('PROBLEM'))).toEqual([]);
  expect(result.tables[0]!.rows.map((r) => r[0])).toEqual([
    'PostgresStore (pg)',
    'PostgresStore (postgres.js)',
    'RedisStore (ioredis)',
    'MemoryStore',
  ]);
  for (const table of result.tables)
    for (const row of table.rows) expect(row).toHaveLength(table.columns.length);
  const trips = result.bars.find((b) => b.name.startsWith('PostgreSQL round trips'))!;
  expect(trips.value).toBe(1);
}, 120_000);
