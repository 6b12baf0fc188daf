// Whether an attacker can tell an unknown tenant from a known one by time. Through receiver.handle (no
// HTTP), with `secret` a function of the request over 1,000 tenants: a known tenant with a wrong signature
// (answered 400 signature_mismatch) against an unknown tenant (404 unknown_tenant, after the comparison
// with a dummy secret), 1 KiB bodies, same run, rounds alternating which goes first. Each figure is the
// median over rounds of the mean time per delivery. For scale, what the dummy comparison costs: one HMAC
// over the same body, the difference an unknown tenant refused at once would show.
// Run: pnpm bench:tenant-timing [--quick] [--cache=off] [--async]
import { createHmac } from 'node:crypto';
import { createReceiver, createTestDelivery, type Receiver } from '@sms-webhooks/core';

const quick = process.argv.includes('--quick');
const cacheOff = process.argv.includes('--cache=off');
const asyncLookup = process.argv.includes('--async');
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
  'unknown tenant': (i: number) => `nobody-${i % 1000}`,
} as const;

async function run(kind: keyof typeof KINDS, n: number): Promise<number> {
  const tenantOf = KINDS[kind];
  const expected = kind === 'unknown tenant' ? 404 : 400;
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const r = await receiver.handle({ rawBody: d.body, headers: d.headers, params: { tenant: tenantOf(i) } });
    if (r.status !== expected) throw new Error(`${kind}: answered ${r.status}, expected ${expected}`);
  }
  return Number(process.hrtime.bigint() - start) / n;
}

function hmacNs(n: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) createHmac('sha256', wrong).update('1764150000.').update(d.body).digest('hex');
  return Number(process.hrtime.bigint() - start) / n;
}

const names = Object.keys(KINDS) as (keyof typeof KINDS)[];
for (const kind of names) await run(kind, PER_ROUND); // warm up, and fill the cache
hmacNs(PER_ROUND);
const times: Record<string, number[]> = { hmac: [] };
const diffs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? names : [...names].reverse();
  const got: Record<string, number> = {};
  for (const kind of order) {
    globalThis.gc?.();
    got[kind] = await run(kind, PER_ROUND);
    times[kind] ??= [];
    times[kind].push(got[kind]!);
  }
  diffs.push(got['unknown tenant']! - got['known tenant, wrong signature']!);
  times.hmac!.push(hmacNs(PER_ROUND));
}

console.log(
  `Node ${process.version}, ${ROUNDS} rounds of ${PER_ROUND} deliveries, cache ${cacheOff ? 'off' : 'on'}, ${asyncLookup ? 'async' : 'sync'} lookup, ${Buffer.byteLength(d.body)}-byte body`,
);
for (const kind of names)
  console.log(`  ${kind.padEnd(30)} ${(median(times[kind]!) / 1000).toFixed(2)} µs per delivery`);
console.log(
  `  unknown − known, per round        ${(median(diffs) / 1000).toFixed(3)} µs (median), spread ${(Math.min(...diffs) / 1000).toFixed(2)} to ${(Math.max(...diffs) / 1000).toFixed(2)} µs`,
);
console.log(
  `  one HMAC over the body            ${(median(times.hmac!) / 1000).toFixed(2)} µs (what skipping the dummy comparison would save)`,
);
