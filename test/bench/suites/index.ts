import type { SuiteResult } from '../lib/report.js';
import type { Profile } from '../profiles.js';
import { runHttp } from './http.js';
import { runMemoryStore } from './memory-store.js';
import { runOtel } from './otel.js';
import { runOversized } from './oversized.js';
import { POSTGRES_PROFILES, runPostgres } from './postgres.js';
import { runRedis } from './redis.js';
import { runVerification } from './verification.js';

/** In the order `pnpm bench` runs them: in-process ones first, HTTP last. */
export const SUITES = {
  verification: (p: Profile) => runVerification(p.verification),
  'memory-store': (p: Profile) => runMemoryStore(p.memoryStore),
  oversized: (p: Profile) => runOversized(p.oversized),
  http: (p: Profile) => runHttp(p.http),
  redis: (p: Profile) => runRedis(p.redis),
  postgres: (p: Profile) => runPostgres(POSTGRES_PROFILES[p.name]),
  otel: (p: Profile) => runOtel(p.otel),
} satisfies Record<string, (p: Profile) => SuiteResult | Promise<SuiteResult>>;

export type SuiteId = keyof typeof SUITES;
export const SUITE_IDS = Object.keys(SUITES) as SuiteId[];

export async function runSuite(id: SuiteId, profile: Profile): Promise<SuiteResult> {
  return SUITES[id](profile);
}
