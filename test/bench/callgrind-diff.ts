/**
 * `tsx test/bench/callgrind-diff.ts <dir A> <dir B> [--requests=2000] [--top=30]`
 *
 * Where B's main-thread instructions per request go beyond A's, from two dumps kept by
 * `pnpm bench:instructions --keep=dir` (dir/<framework>-<contender>): callgrind_annotate's self cost per
 * function, per request, grouped by what the function is (JIT-compiled JavaScript, V8's inline-cache
 * and property-lookup runtime, the garbage collector, builtins, node's C++, OpenSSL, libc), and the
 * functions whose cost differs most. JIT-compiled JavaScript has no symbols under valgrind (V8 writes
 * no map callgrind reads), so our own functions show up only as that group's total and through the
 * builtins and runtime calls they make.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const [dirA, dirB] = args.filter((a) => !a.startsWith('--'));
const opt = (name: string, fallback: number) =>
  Number(args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const requests = opt('requests', 2000);
const top = opt('top', 30);
if (!dirA || !dirB) {
  console.error('usage: tsx test/bench/callgrind-diff.ts <dir A> <dir B> [--requests=2000] [--top=30]');
  process.exit(2);
}

/** Self instructions per request by function, from the main thread's dump. */
function selfCosts(dir: string): Map<string, number> {
  const file = readdirSync(dir).find((f) => f.endsWith('.1-01'));
  if (!file) throw new Error(`no main-thread dump in ${dir}`);
  const text = execFileSync(
    'callgrind_annotate',
    ['--inclusive=no', '--threshold=100', '--auto=no', join(dir, file)],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  const costs = new Map<string, number>();
  const programTotal = Number(/([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS/.exec(text)?.[1]?.replaceAll(',', ''));
  for (const line of text.split('\n')) {
    const m = /^\s*([\d,]+) \([\d. ]+%\)\s+(.+)$/.exec(line);
    if (!m || m[2] === 'PROGRAM TOTALS') continue;
    // The frames still on the stack at the dump (main down to the event loop) are listed with the whole
    // total as their own: they did not return, so callgrind never moved their callees' costs out.
    if (Number(m[1]!.replaceAll(',', '')) >= programTotal * 0.999) continue;
    const name = m[2]!.replace(/^\?\?\?:/, '');
    costs.set(name, (costs.get(name) ?? 0) + Number(m[1]!.replaceAll(',', '')) / requests);
  }
  return costs;
}

/** JIT-compiled code: an address in no object file; it moves between runs, so only its total means anything. */
const JIT = /^0x[0-9a-f]+( \[\?\?\?\])?$/;
const GROUPS: [string, RegExp][] = [
  ['JIT-compiled JavaScript (no symbols)', JIT],
  [
    'garbage collector',
    /Scaveng|Heap::|MarkCompact|Marking|Sweep|Evacuat|GCTracer|MemoryAllocator|ConcurrentMarking|IterateObjectCache|RecordWrite|RootVisitor|RootScavenge|Handles::Iterate|GlobalHandles|AllocateRaw/,
  ],
  [
    'V8 inline caches, property lookup, maps',
    /LookupIterator|IC::|IC_|StubCache|Feedback|MigrateToMap|DescriptorArray|Map::|TransitionsAccessor|PrototypeIterator|FieldIndex/,
  ],
  ['V8 builtins: promises, microtasks', /^Builtins_.*(Promise|Microtask|Await|AsyncFunction|RunMicrotasks)/],
  ['V8 builtins: Map, Set, hashing', /^Builtins_.*(Map|Set|Hash)|OrderedHash/],
  ['V8 builtins: strings, JSON', /^Builtins_.*(String|JSON|RegExp)|JsonParser|String|Utf8/],
  ['V8 builtins, other', /^Builtins_/],
  ['OpenSSL (HMAC, SHA-256)', /libcrypto|sha256|SHA256|EVP_|HMAC/i],
  ['node C++ (http parser, streams, crypto bindings)', /node::|llhttp|uv_|nghttp/],
  ['libc (malloc, memcpy)', /libc\.so|malloc|memcpy|memmove|free/],
  ['V8 other', /v8::/],
];

function groupOf(name: string): string {
  for (const [group, re] of GROUPS) if (re.test(name)) return group;
  return 'other';
}

const a = selfCosts(dirA);
const b = selfCosts(dirB);
const byGroup = new Map<string, [number, number]>();
for (const [costs, i] of [
  [a, 0],
  [b, 1],
] as const) {
  for (const [name, cost] of costs) {
    const g = byGroup.get(groupOf(name)) ?? [0, 0];
    g[i] += cost;
    byGroup.set(groupOf(name), g);
  }
}
const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
const total = (m: Map<string, number>) => [...m.values()].reduce((s, v) => s + v, 0);
console.log(
  `A ${dirA}: ${k(total(a))} per request; B ${dirB}: ${k(total(b))}; B - A ${k(total(b) - total(a))}\n`,
);
console.log('group | A | B | B - A');
for (const [group, [x, y]] of [...byGroup].sort((p, q) => q[1][1] - q[1][0] - (p[1][1] - p[1][0]))) {
  console.log(`${group} | ${k(x)} | ${k(y)} | ${k(y - x)}`);
}
const names = new Set([...a.keys(), ...b.keys()]);
const diffs = [...names]
  .filter((n) => !JIT.test(n))
  .map((n) => [n, (b.get(n) ?? 0) - (a.get(n) ?? 0)] as const);
diffs.sort((p, q) => Math.abs(q[1]) - Math.abs(p[1]));
console.log(`\nnamed functions whose self cost differs most (per request, B - A):`);
for (const [name, d] of diffs.slice(0, top)) console.log(`${k(d)}  ${name.slice(0, 150)}`);
