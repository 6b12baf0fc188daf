import { readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { barsTable, renderMarkdown, type SuiteResult } from './report.js';

export interface Machine {
  cores: number;
  model: string;
  node: string;
  date: string;
}

export function machine(): Machine {
  let model = cpus()[0]?.model ?? 'unknown';
  try {
    model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? model;
  } catch {
    // not Linux: os.cpus() is as good as it gets
  }
  return { cores: availableParallelism(), model, node: process.version, date: new Date().toISOString() };
}

/** How the bars are read where the issue leaves room; kept with every RESULTS.md. */
const READING = `## Reading the bars

- Verification, 1 MiB: parsing a megabyte of JSON costs about five HMACs of it, so no verifier that
  parses (the hand-written floor included) gets near 0.9x a bare HMAC. The bar is applied to the part it
  is about: \`verifySignature\`, the signature check \`verifyWebhook\` runs before parsing, against a bare
  HMAC-SHA256 over the same bytes. The full verify + parse is compared with the floor in the table.
- MemoryStore: a claim+complete pair counts as one operation (the stricter reading; operations/s in the
  table counts each call). Heap per entry includes the id string, which the store is what keeps alive.
- Oversized bodies: "answered 413" counts responses the client actually received. A server that closes
  the socket while the client is still sending makes the kernel answer the client's next bytes with a
  reset, which can destroy the 413 before the client reads it (seen with Node's http client and a raw socket alike).
- HTTP and Redis runs: one server per contender in its own process, autocannon in another process,
  every request a fresh pre-signed event id; ours is counted handling each one exactly once.`;

export function resultsMarkdown(results: readonly SuiteResult[], profile: string, seconds: number): string {
  const m = machine();
  const bars = results.flatMap((r) => r.bars);
  const failed = bars.filter((b) => !b.pass).length;
  const out = [
    '# Benchmark results',
    '',
    `Written by \`pnpm bench${profile === 'quick' ? ' --quick' : ''}\` (${profile} profile, ${seconds.toFixed(0)} s). Ratios are what count: the`,
    'machine is shared, so absolute numbers move from run to run; every benchmark alternates its contenders',
    'and reports medians.',
    '',
    `- Machine: ${m.cores} cores (nproc), ${m.model}`,
    `- Node: ${m.node}`,
    `- Date: ${m.date}`,
    `- Bars: ${bars.length - failed} of ${bars.length} pass`,
    '',
    renderMarkdown({ ...barsTable(bars), title: 'All bars' }),
  ];
  out.push('', READING);
  for (const r of results) {
    out.push('', `## ${r.title}`, '');
    for (const t of r.tables) if (t.title !== 'Bars') out.push(renderMarkdown(t), '');
    for (const n of r.notes) out.push(`- ${n}`);
  }
  return `${out.join('\n').trimEnd()}\n`;
}
