import type { HttpProfile } from './suites/http.js';
import type { MemoryStoreProfile } from './suites/memory-store.js';
import type { OversizedProfile } from './suites/oversized.js';
import type { RedisProfile } from './suites/redis.js';
import type { VerificationProfile } from './suites/verification.js';

export interface Profile {
  name: 'full' | 'quick' | 'tiny';
  verification: VerificationProfile;
  memoryStore: MemoryStoreProfile;
  oversized: OversizedProfile;
  http: HttpProfile;
  /** The otel suite's load: nine servers per framework, so fewer and shorter rounds than http's in a full run. */
  otel: HttpProfile;
  redis: RedisProfile;
}

const KiB = 1024;
const MiB = 1024 * KiB;
const SIZES = [
  { label: '1 KiB', bytes: KiB },
  { label: '64 KiB', bytes: 64 * KiB },
  { label: '1 MiB', bytes: MiB },
];
const FRAMEWORKS: HttpProfile['frameworks'] = ['express', 'fastify', 'koa'];

/** `pnpm bench`: long enough that the medians settle on a shared machine (about 10 minutes). */
export const FULL: Profile = {
  name: 'full',
  verification: { sizes: SIZES, rounds: 9, roundMs: 400, warmupMs: 500 },
  memoryStore: { pairs: 1_000_000, rounds: 7, keptEntries: 200_000 },
  oversized: {
    frameworks: FRAMEWORKS,
    requests: 100,
    bodyBytes: 10 * MiB,
    limitBytes: MiB,
    stalled: { requests: 1000, sentBytes: 200 * KiB },
  },
  http: {
    frameworks: FRAMEWORKS,
    amount: 20_000,
    warmupAmount: 5_000,
    rounds: 7,
    connections: 32,
    bodyBytes: KiB,
  },
  otel: {
    frameworks: FRAMEWORKS,
    amount: 10_000,
    warmupAmount: 3_000,
    rounds: 5,
    connections: 32,
    bodyBytes: KiB,
  },
  redis: { amount: 10_000, warmupAmount: 2_000, rounds: 7, connections: 32, bodyBytes: KiB, probes: 50 },
};

const QUICK_HTTP: HttpProfile = {
  frameworks: FRAMEWORKS,
  amount: 5_000,
  warmupAmount: 1_500,
  rounds: 3,
  connections: 32,
  bodyBytes: KiB,
};

/** `pnpm bench --quick`: every benchmark and bar, fewer and shorter rounds; under two minutes. */
export const QUICK: Profile = {
  name: 'quick',
  verification: { sizes: SIZES, rounds: 5, roundMs: 100, warmupMs: 100 },
  memoryStore: { pairs: 1_000_000, rounds: 3, keptEntries: 100_000 },
  oversized: {
    frameworks: ['express'],
    requests: 100,
    bodyBytes: 10 * MiB,
    limitBytes: MiB,
    stalled: { requests: 1000, sentBytes: 200 * KiB },
  },
  http: QUICK_HTTP,
  otel: QUICK_HTTP,
  redis: { amount: 3_000, warmupAmount: 1_000, rounds: 3, connections: 32, bodyBytes: KiB, probes: 10 },
};

const TINY_HTTP: HttpProfile = {
  frameworks: ['express'],
  amount: 100,
  warmupAmount: 64,
  rounds: 1,
  connections: 4,
  bodyBytes: KiB,
};

/** The smoke test: the same code paths on inputs small enough for a unit-test run. */
export const TINY: Profile = {
  name: 'tiny',
  verification: {
    sizes: [
      { label: '1 KiB', bytes: KiB },
      { label: '1 MiB', bytes: MiB },
    ],
    rounds: 2,
    roundMs: 5,
    warmupMs: 5,
  },
  memoryStore: { pairs: 20_000, rounds: 1, keptEntries: 50_000 },
  oversized: {
    frameworks: ['express'],
    requests: 5,
    bodyBytes: 2 * MiB,
    limitBytes: 64 * KiB,
    stalled: { requests: 5, sentBytes: 16 * KiB },
  },
  http: TINY_HTTP,
  otel: TINY_HTTP,
  redis: { amount: 100, warmupAmount: 50, rounds: 1, connections: 4, bodyBytes: KiB, probes: 2 },
};
