/**
 * `pnpm bench:verify-instructions [--calls=6000] [--repeats=3] [--contenders=ours,floor,stripe]
 *   [--from=build|source]`: instructions per verification of one 1 KiB event, for ours, a hand-written
 * createHmac + timingSafeEqual + JSON.parse, and Stripe's constructEvent, counted by callgrind
 * (lib/verify-count.ts run with no calls and with --calls, the difference divided by the calls; the
 * median of --repeats runs). All runs go at once. A count, not a time: it does not move with what else
 * the machine is doing. Ours is the published build (run `pnpm build` first); `--from=source` counts the
 * sources under tsx (lib/code-under-test.ts).
 */
import { spawn } from 'node:child_process';
import { arg } from './lib/args.js';
import { requireValgrind } from './lib/callgrind.js';
import { codeFrom, describeCode, nodeImports } from './lib/code-under-test.js';

requireValgrind();
const calls = Number(arg('calls', '10000'));
const repeats = Number(arg('repeats', '3'));
const script = new URL('./lib/verify-count.ts', import.meta.url).pathname;
const from = codeFrom();
console.log(`Node ${process.version}; ${describeCode(from, ['core'])}`);
console.log(`${calls} verifications after 3,000, the median of ${repeats} runs\n`);

/** The whole run's instruction count (callgrind's total, every thread). */
function instructions(contender: string, n: number): Promise<number> {
  // --single-threaded: V8's compiler and GC threads would add a varying count of their own.
  const node = [process.execPath, '--single-threaded', ...nodeImports(from)];
  const args = ['--tool=callgrind', '--callgrind-out-file=/dev/null', ...node];
  const run = spawn('valgrind', [...args, script, contender, String(n)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  run.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    run.on('close', (status) => {
      const collected = /Collected : (\d+)/.exec(stderr)?.[1];
      if (status !== 0 || collected === undefined) reject(new Error(`${contender}: ${stderr.slice(-500)}`));
      else resolve(Number(collected));
    });
  });
}

// Every run at once: a count does not depend on what runs beside it, and on a shared machine one after
// another takes hours.
const CONTENDERS = arg('contenders', 'ours,floor,stripe').split(',');
const counts = await Promise.all(
  CONTENDERS.map((c) =>
    Promise.all([0, ...Array.from({ length: repeats }, () => calls)].map((n) => instructions(c, n))),
  ),
);
const perCall = new Map<string, number>();
for (const [i, contender] of CONTENDERS.entries()) {
  const [base, ...runs] = counts[i]!;
  const each = runs.map((total) => (total - base!) / calls).sort((a, b) => a - b);
  perCall.set(contender, each[Math.floor(repeats / 2)]!);
  console.log(
    `${contender.padEnd(7)} ${(perCall.get(contender)! / 1000).toFixed(1)}k instructions per verification (runs: ${each.map((v) => `${(v / 1000).toFixed(1)}k`).join(', ')})`,
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
  console.log(
    `ours vs ${label}: ${ratio.toFixed(2)}x (bar >= ${min.toFixed(2)}x): ${ratio >= min ? 'pass' : 'FAIL'}`,
  );
}
