import type PgBossClass from 'pg-boss';

/**
 * The app's own pg-boss class, loaded when a command needs it: pg-boss 10 exports it as the default,
 * pg-boss 12 only as the named `PgBoss`. Typed as 10's: the options and calls the CLI uses are in both.
 */
async function loadPgBoss(): Promise<typeof PgBossClass> {
  const loaded = (await import('pg-boss')) as { PgBoss?: typeof PgBossClass; default?: typeof PgBossClass };
  const PgBoss = loaded.PgBoss ?? loaded.default;
  if (typeof PgBoss !== 'function') throw new Error('the installed pg-boss exports no PgBoss class.');
  return PgBoss;
}

/**
 * A pg-boss for reading and replaying the failed set from the CLI: no supervisor, schedule or migration of
 * its own (the app's pg-boss does those), and its background errors left to the calls that fail.
 */
export async function cliPgBoss(
  connection: { connectionString: string; connectionTimeoutMillis: number; max: number },
  schema: string | undefined,
): Promise<PgBossClass> {
  const PgBoss = await loadPgBoss();
  const boss = new PgBoss({ ...connection, schema, supervise: false, schedule: false, migrate: false });
  boss.on('error', () => {});
  return boss;
}
