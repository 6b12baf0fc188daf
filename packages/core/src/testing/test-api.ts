import { optionError } from '@sms-webhooks/internal';
/** The few test-runner functions the contract suites need; vitest, jest, mocha and node:test all have them. */
export interface TestApi {
  /** Groups the rows under `name`. */
  describe(name: string, fn: () => void): void;
  /** One row; `timeout` in ms, when the row needs longer than the runner's default. */
  it(name: string, fn: () => Promise<void> | void, timeout?: number): void;
}

/**
 * `api`'s `describe` and `it`, else the runner's globals (vitest with globals, jest, mocha). Throws a
 * TypeError saying to pass them when neither has them.
 */
export function resolveTestApi(api?: Partial<TestApi>): TestApi {
  const g = globalThis as unknown as Partial<TestApi>;
  const describe = api?.describe ?? g.describe;
  const it = api?.it ?? g.it;
  if (typeof describe !== 'function' || typeof it !== 'function') {
    throw optionError(
      '@sms-webhooks/core/testing',
      "no describe/it found. Enable your runner's globals or pass them: runDedupeStoreContract(name, makeStore, { describe, it }).",
    );
  }
  return { describe, it };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
