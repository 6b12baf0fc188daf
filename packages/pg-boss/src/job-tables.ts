import type { SqlExecutor } from './transaction-db.js';

/**
 * pg-boss's job tables in `schema`, which its docs open to direct SQL. pg-boss 10 moves a finished job
 * from `job` to `archive` and keeps a run's time limit as `expire_in` (an interval); 11 and later have
 * no archive, and keep `expire_seconds`.
 */
export interface JobTables {
  tables: ReadonlyArray<{ name: string; archived: boolean }>;
  /** The job's run time limit in seconds, as a column expression. */
  expireSeconds: string;
}

export async function jobTables(db: SqlExecutor, schema: string): Promise<JobTables> {
  const { rows } = await db.executeSql('SELECT to_regclass($1) IS NOT NULL AS archive', [
    `${schema}.archive`,
  ]);
  if (rows[0]?.archive === true) {
    return {
      tables: [
        { name: `${schema}.job`, archived: false },
        { name: `${schema}.archive`, archived: true },
      ],
      expireSeconds: 'EXTRACT(epoch FROM expire_in)::int',
    };
  }
  return { tables: [{ name: `${schema}.job`, archived: false }], expireSeconds: 'expire_seconds' };
}
