import { request as httpRequest } from 'node:http';
import { request } from '../lib/child.js';
import { type RunningServer, startServer, stopAll } from '../lib/http-harness.js';
import { type BarCheck, bar, barsTable, type SuiteResult, type Table } from '../lib/report.js';
import { formatBytes } from '../lib/stats.js';
import type { Framework } from '../servers/contenders.js';

export interface OversizedProfile {
  frameworks: Framework[];
  /** Sent at once. */
  requests: number;
  bodyBytes: number;
  limitBytes: number;
  /** Uploads that send part of a body the limit allows and then stall until the body time-out (408). */
  stalled: { requests: number; sentBytes: number };
}

/** The bound the README states for bodies being read: what has arrived, plus this much per connection. */
export const PER_CONNECTION_BYTES = 64 * 1024;
const STALL_TIMEOUT_MS = 4_000;

type Mode = 'chunked' | 'declared';
const CHUNK = Buffer.alloc(64 * 1024, 0x20);
const MiB = 1024 * 1024;

interface Outcome {
  status?: number;
  error?: string;
}

/**
 * Streams `bytes` of body (chunked, or with a declared length) until the server answers. The server
 * closes the socket after an early 413, so a write error is normal: only a missing answer is a failure.
 */
function sendOversized(url: string, bytes: number, mode: Mode): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-service-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
    };
    if (mode === 'declared') headers['content-length'] = String(bytes);
    const req = httpRequest(url, { method: 'POST', agent: false, headers });
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
      req.destroy();
    };
    const timer = setTimeout(() => finish({ error: 'no answer in 30 s' }), 30_000);
    req.on('response', (res) => {
      clearTimeout(timer);
      res.resume();
      finish({ status: res.statusCode });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      setTimeout(() => {
        clearTimeout(timer);
        finish({ error: error.code ?? error.message });
      }, 500);
    });
    let sent = 0;
    const pump = () => {
      while (sent < bytes && !settled && !req.destroyed) {
        const n = Math.min(CHUNK.length, bytes - sent);
        sent += n;
        if (!req.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) {
          req.once('drain', pump);
          return;
        }
      }
      if (sent >= bytes && !settled && !req.destroyed) req.end();
    };
    pump();
  });
}

/** Declares a body the limit allows, sends `sent` bytes of it, and waits for the 408. */
function sendStalled(url: string, declared: number, sent: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = httpRequest(url, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': String(declared) },
    });
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ error: 'no answer' });
    }, STALL_TIMEOUT_MS + 20_000);
    req.on('response', (res) => {
      clearTimeout(timer);
      res.resume();
      resolve({ status: res.statusCode });
      req.destroy();
    });
    req.on('error', () => {});
    req.write(Buffer.alloc(sent, 0x20));
  });
}

async function probeStalled(server: RunningServer, profile: OversizedProfile) {
  const { requests, sentBytes } = profile.stalled;
  await request(server.child, { type: 'rss-start' }, 'rss-started');
  const outcomes = await Promise.all(
    Array.from({ length: requests }, () => sendStalled(server.url, profile.limitBytes, sentBytes)),
  );
  const rss = await request<{ baseline: number; peak: number }>(server.child, { type: 'rss-stop' }, 'rss');
  return {
    got408: outcomes.filter((o) => o.status === 408).length,
    growth: rss.peak - rss.baseline,
    bound: requests * (sentBytes + PER_CONNECTION_BYTES),
  };
}

async function probe(server: RunningServer, profile: OversizedProfile, mode: Mode) {
  await request(server.child, { type: 'rss-start' }, 'rss-started');
  const outcomes = await Promise.all(
    Array.from({ length: profile.requests }, () => sendOversized(server.url, profile.bodyBytes, mode)),
  );
  const rss = await request<{ baseline: number; peak: number }>(server.child, { type: 'rss-stop' }, 'rss');
  const got413 = outcomes.filter((o) => o.status === 413).length;
  const other = outcomes.filter((o) => o.status !== 413).map((o) => o.error ?? String(o.status));
  return { got413, other, growth: rss.peak - rss.baseline, baseline: rss.baseline };
}

export async function runOversized(profile: OversizedProfile): Promise<SuiteResult> {
  const started = performance.now();
  const rows: string[][] = [];
  const bars: BarCheck[] = [];
  const notes: string[] = [];
  for (const framework of profile.frameworks) {
    const servers: RunningServer[] = [];
    try {
      servers.push(
        await startServer({
          framework,
          contender: 'ours',
          store: 'memory',
          maxBodyBytes: profile.limitBytes,
          bodyTimeoutMs: STALL_TIMEOUT_MS,
        }),
      );
      for (const mode of ['chunked', 'declared'] as const) {
        const r = await probe(servers[0]!, profile, mode);
        rows.push([
          `${framework}, ${mode === 'chunked' ? 'chunked (no length)' : 'content-length declared'}`,
          `${r.got413}/${profile.requests}`,
          formatBytes(r.baseline),
          formatBytes(r.growth),
        ]);
        bars.push(
          bar(`${framework} ${mode}: requests answered 413`, r.got413 / profile.requests, 1, 'of all'),
        );
        bars.push(bar(`${framework} ${mode}: peak RSS growth`, r.growth / MiB, 100, 'MiB', true));
        if (r.other.length > 0)
          notes.push(`PROBLEM: ${framework} ${mode}: ${r.other.slice(0, 5).join(', ')}`);
      }
      const s = await probeStalled(servers[0]!, profile);
      const { requests, sentBytes } = profile.stalled;
      rows.push([
        `${framework}, ${requests} stalled after ${formatBytes(sentBytes)} (408 expected)`,
        `${s.got408}/${requests} (408)`,
        '',
        formatBytes(s.growth),
      ]);
      bars.push(bar(`${framework} stalled: requests answered 408`, s.got408 / requests, 1, 'of all'));
      bars.push(bar(`${framework} stalled: peak RSS growth`, s.growth / MiB, s.bound / MiB, 'MiB', true));
    } finally {
      await stopAll(servers);
    }
  }
  const tables: Table[] = [
    {
      title: `Oversized bodies: ${profile.requests} concurrent ${formatBytes(profile.bodyBytes)} requests, limit ${formatBytes(profile.limitBytes)}`,
      columns: ['adapter, body', 'answered', 'RSS before', 'peak RSS growth'],
      rows,
    },
    barsTable(bars),
  ];
  return {
    id: 'oversized',
    title: '5. Oversized bodies',
    tables,
    bars,
    notes: [
      'The server runs in its own process and samples its RSS every 2 ms (and reads its maxRSS) while the requests stream in.',
      `Stalled uploads: the bar is the README's bound, what has arrived plus ${PER_CONNECTION_BYTES / 1024} KiB per connection.`,
      ...notes,
    ],
    seconds: (performance.now() - started) / 1000,
  };
}
