/**
 * `tsx --expose-gc test/bench/verification-cpu.ts [--rounds=15] [--ops=2000]`
 *
 * Issue 28's verification bar (ours >= 0.95x the padded-key floor at 1 KiB and 64 KiB) read in CPU time
 * rather than wall time: on a machine whose other processes take the cores away, `process.cpuUsage()`
 * charges each contender only for the time it ran. Same contenders and bodies as the verification suite;
 * rounds alternate them (rotating who goes first) and the figure is the median of per-round ratios.
 */
import { verifyWebhook } from '@sms-webhooks/core';
import { BENCH_SECRET, deliveryHeaders, eventBody, eventId } from './lib/fixtures.js';
import { PaddedKeyFloor } from './lib/padded-key.js';
import { median } from './lib/stats.js';

const opt = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const rounds = opt('rounds', 15);
const gc = (globalThis as { gc?: () => void }).gc;

let sink: unknown;
function cpuPerOp(fn: () => unknown, ops: number): number {
  gc?.();
  const before = process.cpuUsage();
  for (let i = 0; i < ops; i++) sink = fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / ops;
}

for (const bytes of [1024, 64 * 1024]) {
  const id = eventId(1, 'cpu');
  const text = eventBody(bytes, id);
  const body = Buffer.from(text);
  const headers = deliveryHeaders(text, id);
  const timestamp = /t=(\d+)/.exec(headers['x-service-signature']!)![1]!;
  const floor = new PaddedKeyFloor(BENCH_SECRET);
  const contenders = [
    () => verifyWebhook(body, headers, { secret: BENCH_SECRET }),
    () => floor.verify(timestamp, body),
  ];
  const ops = opt('ops', bytes <= 1024 ? 20_000 : 400);
  for (const fn of contenders) cpuPerOp(fn, ops); // warm-up
  const ratios: number[] = [];
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    const t: number[] = [];
    for (const i of order) t[i] = cpuPerOp(contenders[i]!, ops);
    ours.push(t[0]!);
    theirs.push(t[1]!);
    ratios.push(t[1]! / t[0]!);
  }
  console.log(
    `${bytes / 1024} KiB: ours ${median(ours).toFixed(2)} µs, padded-key floor ${median(theirs).toFixed(2)} µs CPU per verification; ours / floor (throughput) ${median(ratios).toFixed(2)}x (bar >= 0.95x)`,
  );
}
void sink;
