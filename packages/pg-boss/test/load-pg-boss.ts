import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type PgBossClass from 'pg-boss';

/**
 * The pg-boss major a fixture process runs on, from the module its test names in PGBOSS_MODULE: 'pg-boss'
 * (10) exports the class as the default, 'pg-boss12' only as the named `PgBoss`. Typed as 10's, as in
 * set-up.ts.
 */
export async function loadPgBoss(
  specifier = process.env.PGBOSS_MODULE ?? 'pg-boss',
): Promise<typeof PgBossClass> {
  // Resolved from this file, not from where a fixture's bundle is written (test/.tmp/programs): pg-boss12
  // is a dependency of this package alone.
  const file = createRequire(import.meta.url).resolve(specifier);
  const loaded = (await import(pathToFileURL(file).href)) as {
    PgBoss?: typeof PgBossClass;
    default?: typeof PgBossClass;
  };
  const PgBoss = loaded.PgBoss ?? loaded.default;
  if (typeof PgBoss !== 'function') throw new Error(`${specifier} exports no PgBoss class`);
  return PgBoss;
}
