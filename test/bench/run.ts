/**
 * `pnpm bench [--quick] [--only=verification,http] [--write] [--out=file.md] [--from=build]`
 * `--from=build` runs ours from the published build (packages/<name>/dist; run `pnpm build` first)
 * instead of the sources under tsx, in every suite and server (lib/code-under-test.ts).
 * Runs each suite in its own process, prints its tables and bars, and (full runs of every suite, or
 * --write) writes test/bench/RESULTS.md, or the file --out names (a run on another Node major, say,
 * whose tables then go into RESULTS.md beside the main run's). Exits 1 when a bar fails.
 */
import { writeFileSync } from 'node:fs';
import { forkTs, nextMessage } from './lib/child.js';
import { describeCode } from './lib/code-under-test.js';
import { barsTable, renderText, type SuiteResult } from './lib/report.js';
import { resultsMarkdown } from './lib/results-file.js';
import { SUITE_IDS, type SuiteId } from './suites/index.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',') as SuiteId[] | undefined;
const unknown = only?.filter((id) => !SUITE_IDS.includes(id));
if (unknown?.length) {
  console.error(`unknown suite(s): ${unknown.join(', ')}; known: ${SUITE_IDS.join(', ')}`);
  process.exit(2);
}
const out = args.find((a) => a.startsWith('--out='))?.slice('--out='.length);
const write = args.includes('--write') || out !== undefined || (!quick && only === undefined);
const profile = quick ? 'quick' : 'full';
const CHILD = new URL('./suite-child.ts', import.meta.url);
const from = args.includes('--from=build') ? 'build' : 'source';
if (from === 'build') process.env.BENCH_FROM = 'build';

async function runInChild(id: SuiteId): Promise<SuiteResult> {
  const child = await forkTs(CHILD, [id, profile], ['--expose-gc']);
  const reply = await nextMessage<{ result?: SuiteResult; error?: string }>(child, 'result', 30 * 60_000);
  if (reply.error || !reply.result) throw new Error(`${id} failed: ${reply.error}`);
  return reply.result;
}

const started = performance.now();
const results: SuiteResult[] = [];
let crashed = false;
console.log(`sms-webhooks benchmarks (${profile} profile)`);
console.log(`${describeCode(from, ['core', 'express', 'fastify', 'koa'])}\n`);
for (const id of only ?? SUITE_IDS) {
  try {
    const result = await runInChild(id);
    results.push(result);
    console.log(`${result.title} (${result.seconds.toFixed(1)} s)`);
    for (const table of result.tables) console.log(`${renderText(table)}\n`);
    for (const note of result.notes) console.log(`  - ${note}`);
    console.log('');
  } catch (error) {
    crashed = true;
    console.error(`${id}: ${(error as Error).message}\n`);
  }
}
const seconds = (performance.now() - started) / 1000;
const bars = results.flatMap((r) => r.bars);
console.log(renderText({ ...barsTable(bars), title: `All bars (${seconds.toFixed(0)} s)` }));
if (write && !crashed) {
  const file = out ?? new URL('./RESULTS.md', import.meta.url).pathname;
  writeFileSync(file, resultsMarkdown(results, profile, seconds));
  console.log(`\nwrote ${file}`);
}
process.exit(crashed || bars.some((b) => !b.pass) ? 1 : 0);
