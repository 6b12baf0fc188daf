/**
 * `pnpm bench:verify-instructions [--calls=10000] [--windows=3] [--repeats=1] [--contenders=ours,floor,stripe]
 *   [--from=build|source]`: instructions per verification of one 1 KiB event, for ours, a hand-written
 * createHmac + timingSafeEqual + JSON.parse, and Stripe's constructEvent, counted by callgrind on the main
 * thread (`node --single-threaded`: V8 compiles and collects there too). Each contender runs in its own
 * process (lib/verify-count.ts): 3,000 calls to warm up, then --windows counts of --calls each, zeroed
 * before and dumped after with callgrind_control, as bench:instructions counts its windows. --repeats
 * rounds of fresh processes, one after another, every contender's at once in each (a count does not
 * depend on what runs beside it). The figure is the median of every count; each count is printed, with
 * the spread (max - min over the median). A count, not a time: it does not move with what else the
 * machine is doing. Ours is the published build (run `pnpm build` first); `--from=source` counts the
 * sources under tsx (lib/code-under-test.ts).
 *
 * Until issue 48 each figure was one whole process's count with the calls less one without them: the
 * start-up, tens of times the work measured, did not subtract out exactly, and runs moved by up to 20%.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arg } from './lib/args.js';
import { forkUnderCallgrind, mainThreadInstructions, requireValgrind } from './lib/callgrind.js';
import { nextMessage, request, stopChild } from './lib/child.js';
import { codeFrom, describeCode, nodeImports } from './lib/code-under-test.js';
import { median } from './lib/stats.js';

requireValgrind();
const calls = Number(arg('calls', '10000'));
const windows = Number(arg('windows', '3'));
const repeats = Number(arg('repeats', '1'));
const CONTENDERS = arg('contenders', 'ours,floor,stripe').split(',');
const script = new URL('./lib/verify-count.ts', import.meta.url).pathname;
const from = codeFrom();
console.log(`Node ${process.version}; ${describeCode(from, ['core'])}`);
console.log(
  `${windows} counts of ${calls} verifications after 3,000, in each of ${repeats} process${repeats === 1 ? '' : 'es'} per contender\n`,
);

/** Instructions per call in each window of one process. */
async function count(contender: string): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sms-webhooks-verify-'));
  const child = forkUnderCallgrind(script, [contender], dir, [
    process.execPath,
    '--single-threaded',
    ...nodeImports(from),
  ]);
  try {
    // Node, tsx and Stripe's SDK start about 50 times slower under valgrind, slower still on a loaded machine.
    await nextMessage(child, 'warm', 60 * 60_000);
    const each: number[] = [];
    for (let window = 1; window <= windows; window++) {
      execFileSync('callgrind_control', ['--zero', String(child.pid)], { stdio: 'ignore' });
      await request(child, { type: 'run', calls }, 'ran', 60 * 60_000);
      execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' });
      each.push(mainThreadInstructions(dir, window) / calls);
    }
    return each;
  } finally {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

const counts = new Map<string, number[][]>(CONTENDERS.map((c) => [c, []]));
for (let round = 1; round <= repeats; round++) {
  const results = await Promise.all(CONTENDERS.map(count));
  for (const [i, contender] of CONTENDERS.entries()) {
    counts.get(contender)!.push(results[i]!);
    console.log(
      `round ${round}/${repeats} ${contender}: ${results[i]!.map((v) => `${(v / 1000).toFixed(1)}k`).join(', ')}`,
    );
  }
}
console.log('');
const perCall = new Map<string, number>();
for (const contender of CONTENDERS) {
  const all = counts.get(contender)!.flat();
  const mid = median(all);
  perCall.set(contender, mid);
  const spread = (Math.max(...all) - Math.min(...all)) / mid;
  console.log(
    `${contender.padEnd(7)} ${(mid / 1000).toFixed(1)}k instructions per verification, median of ${all.length} counts (${(Math.min(...all) / 1000).toFixed(1)}k-${(Math.max(...all) / 1000).toFixed(1)}k, spread ${(spread * 100).toFixed(1)}%)`,
  );
}
// Issue 48: with the plain form, ahead of Stripe and within 0.80x of the floor (higher is faster).
const ours = perCall.get('ours');
for (const [other, label, min] of [
  ['floor', 'hand-written', 0.8],
  ['stripe', 'Stripe', 1.05],
] as const) {
  const theirs = perCall.get(other);
  if (ours === undefined || theirs === undefined) continue;
  const ratio = theirs / ours;
  const all = counts.get(other)!.flat();
  const oursAll = counts.get('ours')!.flat();
  // The widest and narrowest ratio any pair of counts gives.
  const low = Math.min(...all) / Math.max(...oursAll);
  const high = Math.max(...all) / Math.min(...oursAll);
  console.log(
    `ours vs ${label}: ${ratio.toFixed(2)}x (${low.toFixed(2)}x-${high.toFixed(2)}x over the counts; bar >= ${min.toFixed(2)}x): ${ratio >= min ? 'pass' : 'FAIL'}`,
  );
}
