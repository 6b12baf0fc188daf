// Whether an attacker can tell an unknown tenant from a known one by time. Through receiver.handle (no
// HTTP), with `secret` a function of the request over 1,000 tenants: a known tenant with a wrong signature
// (answered 400 signature_mismatch) against an unknown tenant (404 unknown_tenant, after the comparison
// with a dummy secret), 1 KiB bodies, interleaved one by one. Each figure is the median over rounds of
// each round's median time per delivery. For scale, what the dummy comparison costs: one HMAC
// over the same body, the difference an unknown tenant refused at once would show.
// `--aa` makes the second kind known tenants too (an A/A run): the harness's own noise floor.
// Run: pnpm bench:tenant-timing [--quick] [--cache=off] [--async] [--aa]
import { createHmac } from 'node:crypto';
import { createReceiver, createTestDelivery, type Receiver } from '@sms-webhooks/core';

const quick = process.argv.includes('--quick');
const cacheOff = process.argv.includes('--cache=off');
const asyncLookup = process.argv.includes('--async');
const aa = process.argv.includes('--aa');
const ROUNDS = quick ? 5 : 21;
const PER_ROUND = quick ? 1000 : 5000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const secrets = new Map<string, string>();
for (let i = 0; i < 1000; i++)
  secrets.set(`tenant-${i}`, `whsec_${i.toString().padStart(4, '0')}0123456789abcdef0123456789abcdef01`);
const wrong = 'whsec_attacker0123456789abcdef0123456789abcd';
const quiet = { warn() {}, error() {} };

const receiver: Receiver = createReceiver({
  secret: asyncLookup
    ? async ({ tenant }) => {
        await Promise.resolve();
        return secrets.get(tenant);
      }
    : ({ tenant }) => secrets.get(tenant),
  secretCache: cacheOff ? false : { max: 5000 },
  logger: quiet,
});
receiver.on('message.sent', () => {});

// One signed body per kind, padded to 1 KiB; the signature is fresh within the run's tolerance.
const d = createTestDelivery('message.sent', {
  secret: wrong,
  data: { metadata: { pad: 'x'.repeat(620) } } as never,
});
const KINDS = {
  'known tenant, wrong signature': (i: number) => `tenant-${i % 1000}`,
  'unknown tenant': (i: number) => (aa ? `tenant-${(i + 500) % 1000}` : `nobody-${i % 1000}`),
} as const;

/** One delivery of `kind`, timed alone: the answer's wait included, as a caller would see it. */
async function once(kind: keyof typeof KINDS, i: number): Promise<number> {
  const expected = kind === 'unknown tenant' && !aa ? 404 : 400;
  const params = { tenant: KINDS[kind](i) };
  const start = process.hrtime.bigint();
  const r = await receiver.handle({ rawBody: d.body, headers: d.headers, params });
  const ns = Number(process.hrtime.bigint() - start);
  if (r.status !== expected) throw new Error(`${kind}: answered ${r.status}, expected ${expected}`);
  return ns;
}

function hmacNs(n: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) createHmac('sha256', wrong).update('1764150000.').update(d.body).digest('hex');
  return Number(process.hrtime.bigint() - start) / n;
}

// Interleaved one by one (known, unknown, then unknown, known, …), so load and drift on the shared
// machine fall on both kinds alike; per round, the median time of each kind (robust to GC pauses and
// preemption) and their difference.
const names = Object.keys(KINDS) as (keyof typeof KINDS)[];
for (let i = 0; i < PER_ROUND; i++) for (const kind of names) await once(kind, i); // warm up, fill the cache
const times: Record<string, number[]> = { hmac: [] };
const diffs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  globalThis.gc?.();
  const got: Record<string, number[]> = { [names[0]!]: [], [names[1]!]: [] };
  for (let i = 0; i < PER_ROUND; i++) {
    const order = i % 2 === 0 ? names : [...names].reverse();
    for (const kind of order) got[kind]!.push(await once(kind, i));
  }
  for (const kind of names) {
    times[kind] ??= [];
    times[kind].push(median(got[kind]!));
  }
  diffs.push(median(got['unknown tenant']!) - median(got['known tenant, wrong signature']!));
  times.hmac!.push(hmacNs(PER_ROUND));
}

console.log(
  `Node ${process.version}, ${ROUNDS} rounds of ${PER_ROUND} deliveries, cache ${cacheOff ? 'off' : 'on'}, ${asyncLookup ? 'async' : 'sync'} lookup,${aa ? ' A/A (both kinds known tenants),' : ''} ${Buffer.byteLength(d.body)}-byte body`,
);
for (const kind of names)
  console.log(`  ${kind.padEnd(30)} ${(median(times[kind]!) / 1000).toFixed(2)} µs per delivery`);
console.log(
  `  unknown − known, per round        ${(median(diffs) / 1000).toFixed(3)} µs (median), spread ${(Math.min(...diffs) / 1000).toFixed(2)} to ${(Math.max(...diffs) / 1000).toFixed(2)} µs`,
);
console.log(
  `  one HMAC over the body            ${(median(times.hmac!) / 1000).toFixed(2)} µs (what skipping the dummy comparison would save)`,
);
