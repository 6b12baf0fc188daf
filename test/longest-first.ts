import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The test files that take longest, nearly all of it waiting on a build, child processes or servers,
 * longest first. They start before the rest so that, with several workers, none of them is left running
 * alone at the end of the run. vitest orders by the durations in its cache when it has them (a fresh
 * clone, as CI runs, has none, and then it starts the largest files first, which are not these).
 * `test/style/longest-first.test.ts` checks that each is still a test file.
 */
export const LONGEST_FILES = [
  'test/packaging/packaging.test.ts',
  'test/bench/bench-smoke.test.ts',
  'test/docs/readme-examples.test.ts',
  'test/docs/readme-examples-examples.test.ts',
  'test/docs/readme-examples-stores.test.ts',
  'packages/postgres/test/crash.test.ts',
  'packages/postgres/test/multi-instance.test.ts',
  'test/runtimes/nextjs.test.ts',
  'test/docs/port-taken.test.ts',
  'packages/cli/test/rough-edges.test.ts',
  'packages/cli/test/listen-trigger.test.ts',
  'test/reliability/bursts.test.ts',
  'packages/rabbitmq/test/crash.test.ts',
  // The longest of the files .ci/run runs on Node 22 and 24 as well.
  'test/reliability/refusal-isolation.test.ts',
  'packages/pg-boss/test/job-order.test.ts',
  'test/reliability/refusal-log.test.ts',
  'examples/nestjs/app.test.ts',
  'test/adapters/examples.test.ts',
  'examples/multi-instance/start.test.ts',
  'test/e2e/listen-loop.test.ts',
  'packages/pg-boss/test/worker-crash.test.ts',
  'packages/lambda/test/lambda-runner.test.ts',
];

/** vitest's own order, but the files of {@link LONGEST_FILES} first, in that order. */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FILES.indexOf(
        relative(spec.project.config.root, spec.moduleId).replaceAll('\\', '/'),
      );
      return at === -1 ? LONGEST_FILES.length : at;
    };
    return sorted
      .map((spec, order) => ({ spec, order }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.order - b.order)
      .map(({ spec }) => spec);
  }
}
