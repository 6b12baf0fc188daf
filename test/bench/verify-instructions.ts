/**
 * `pnpm bench:verify-instructions [--calls=6000]`: instructions per verification of one 1 KiB event, for
 * ours, a hand-written createHmac + timingSafeEqual + JSON.parse, and Stripe's constructEvent, counted by
 * callgrind (lib/verify-count.ts run with no calls and with --calls, the difference divided by the calls;
 * the median of --repeats runs).
 * A count, not a time: it does not move with what else the machine is doing.
 */
import { spawnSync } from 'node:child_process';
import { arg } from './lib/args.js';
import { requireValgrind } from './lib/callgrind.js';

requireValgrind();
const calls = Number(arg('calls', '10000'));
const repeats = Number(arg('repeats', '3'));
const script = new URL('./lib/verify-count.ts', import.meta.url).pathname;

function instructions(contender: string, n: number): number {
  // --single-threaded: V8's compiler and GC threads would add a varying count of their own.
  const node = [process.execPath, '--single-threaded', '--import', 'tsx'];
  const args = ['--tool=callgrind', '--callgrind-out-file=/dev/null', ...node];
  const run = spawnSync('valgrind', [...args, script, contender, String(n)], { encoding: 'utf8' });
  const collected = /Collected : (\d+)/.exec(run.stderr)?.[1];
  if (run.status !== 0 || collected === undefined) throw new Error(`${contender}: ${run.stderr.slice(-500)}`);
  return Number(collected);
}

const perCall = new Map<string, number>();
for (const contender of ['ours', 'floor', 'stripe']) {
  const base = instructions(contender, 0);
  const counts = Array.from({ length: repeats }, () => (instructions(contender, calls) - base) / calls);
  perCall.set(contender, counts.sort((a, b) => a - b)[Math.floor(repeats / 2)]!);
  console.log(
    `${contender.padEnd(7)} ${(perCall.get(contender)! / 1000).toFixed(1)}k instructions per verification`,
  );
}
const ours = perCall.get('ours')!;
console.log(`ours vs hand-written: ${(perCall.get('floor')! / ours).toFixed(2)}x (bar >= 0.95x)`);
console.log(`ours vs Stripe:       ${(perCall.get('stripe')! / ours).toFixed(2)}x (bar >= 1.25x)`);
