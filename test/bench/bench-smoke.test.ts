import { describe, expect, it } from 'vitest';
import { deliveryHeaders, signedRequests } from './lib/fixtures.js';
import { serverStats, startServer, stopAll } from './lib/http-harness.js';
import { renderMarkdown, renderText, type SuiteResult } from './lib/report.js';
import { resultsMarkdown } from './lib/results-file.js';
import { TINY } from './profiles.js';
import { runSuite, SUITE_IDS, type SuiteId } from './suites/index.js';

/** The benchmarks' own code, on tiny inputs: timings are not looked at, only that each suite reports. */
function expectShape(result: SuiteResult, id: SuiteId, problemsAllowed = false): void {
  expect(result.id).toBe(id);
  expect(result.tables.length).toBeGreaterThan(0);
  for (const table of result.tables) {
    expect(table.rows.length).toBeGreaterThan(0);
    for (const row of table.rows) expect(row).toHaveLength(table.columns.length);
  }
  expect(result.bars.length).toBeGreaterThan(0);
  for (const b of result.bars) {
    expect(Number.isFinite(b.value)).toBe(true);
    expect(typeof b.pass).toBe('boolean');
  }
  // A PROBLEM note means the run itself went wrong (non-2xx, lost events, reused ids), not that it was slow.
  if (!problemsAllowed) expect(result.notes.filter((n) => n.startsWith('PROBLEM'))).toEqual([]);
  expect(renderText(result.tables[0]!)).toContain(result.tables[0]!.columns[0]);
}

describe('benchmark harness (tiny inputs)', () => {
  it('knows the five suites of issue 6', () => {
    expect(SUITE_IDS).toEqual([
      'verification',
      'memory-store',
      'oversized',
      'http',
      'redis',
      'postgres',
      'otel',
    ]);
  });

  it('verification: every contender accepts the same delivery and gets a row', async () => {
    const result = await runSuite('verification', TINY);
    expectShape(result, 'verification');
    expect(result.tables[0]!.rows.map((r) => r[0])).toContain('stripe constructEvent');
    expect(result.bars.map((b) => b.name)).toEqual([
      '1 KiB: ours vs floor',
      '1 KiB: ours vs Stripe',
      '1 MiB: ours signature check vs bare HMAC',
    ]);
  });

  it('memory-store: measures pairs per second and heap per kept entry', async () => {
    const result = await runSuite('memory-store', TINY);
    expectShape(result, 'memory-store');
    const heap = result.bars.find((b) => b.name.startsWith('heap per kept entry'))!;
    expect(heap.value).toBeGreaterThan(32); // at least the id's characters
  });

  it('oversized: every request gets an outcome and the server reports its RSS', async () => {
    const result = await runSuite('oversized', TINY);
    // A lost 413 (the server resets the socket under the client's writes) is a finding, not a harness bug.
    expectShape(result, 'oversized', true);
    const answered = result.bars.filter((x) => x.name.includes('answered 413'));
    expect(answered).toHaveLength(2);
    for (const b of answered) expect(b.value).toBeGreaterThanOrEqual(0);
    for (const b of answered) expect(b.value).toBeLessThanOrEqual(1);
    const rss = result.bars.filter((x) => x.name.includes('RSS'));
    expect(rss.length, 'the suite reports the server RSS').toBeGreaterThan(0);
    for (const b of rss) expect(b.value).toBeGreaterThanOrEqual(0);
  }, 60_000);

  it('http: servers and load generator in child processes, every request handled once', async () => {
    const result = await runSuite('http', TINY);
    expectShape(result, 'http');
    // ours, limit, empty, by hand (issue 48), hand, stripe (issue 28), each with its server CPU per request
    expect(result.tables[0]!.rows).toHaveLength(6);
    for (const row of result.tables[0]!.rows) expect(Number(row[4])).toBeGreaterThan(0);
    expect(result.bars.map((b) => b.name)).toContain("express: ours server CPU per request / limit's");
  }, 90_000);

  it('by hand (issue 48): on each framework, answers a valid, a badly signed, a stale and a repeated delivery as the adapter contract asks of ours, and runs the handler once', async () => {
    const send = async (url: string, body: Buffer, headers: Record<string, string>) => {
      const { host, 'content-length': length, ...rest } = headers;
      const res = await fetch(url, { method: 'POST', body: body.toString('utf8'), headers: rest });
      return { status: res.status, body: await res.json() };
    };
    const started = await Promise.allSettled(
      (['express', 'fastify', 'koa'] as const).map((framework) =>
        startServer({ framework, contender: 'byhand', store: 'memory', maxBodyBytes: 1 << 20 }),
      ),
    );
    const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      for (const s of started) if (s.status === 'rejected') throw s.reason;
      for (const server of servers) {
        const [d] = signedRequests(1, 1024);
        const id = JSON.parse(d!.body.toString()).id as string;
        const badlySigned = {
          ...d!.headers,
          'x-service-signature': deliveryHeaders('{}', id)['x-service-signature']!,
        };
        const stale = deliveryHeaders(d!.body, id, Math.floor(Date.now() / 1000) - 301);
        const label = `${server.config.framework}/${server.config.contender}`;
        expect((await send(server.url, d!.body, badlySigned)).status, label).toBe(400);
        expect((await send(server.url, d!.body, stale)).status, label).toBe(400);
        expect(await send(server.url, d!.body, d!.headers), label).toEqual({
          status: 200,
          body: { received: true },
        });
        // The handler runs after the answer: the repeat is a duplicate once it has finished.
        await expect.poll(async () => (await serverStats(server)).accepted, { timeout: 5000 }).toBe(1);
        const repeat = await send(server.url, d!.body, d!.headers);
        expect(repeat, label).toEqual({ status: 200, body: { received: true, duplicate: true } });
        expect((await serverStats(server)).accepted, label).toBe(1);
      }
    } finally {
      await stopAll(servers);
    }
  }, 180_000);

  it('redis: counts one round trip before the response', async () => {
    const result = await runSuite('redis', TINY);
    expectShape(result, 'redis');
    const trips = result.bars.find((b) => b.name.startsWith('Redis round trips'))!;
    expect(trips.value).toBe(1);
  }, 90_000);

  it('otel (issues 18, 28): nine servers per framework, every request handled once, each SDK server exporting its spans', async () => {
    const result = await runSuite('otel', TINY);
    expectShape(result, 'otel');
    // none, no SDK, SDK, the hand-written equivalent, the instrumented app with and without ours (issue 28)
    expect(result.tables[0]!.rows).toHaveLength(6);
  }, 180_000);

  it('writes RESULTS.md with the machine, Node version and every bar', async () => {
    const result = await runSuite('memory-store', {
      ...TINY,
      memoryStore: { pairs: 1000, rounds: 1, keptEntries: 100 },
    });
    const md = resultsMarkdown([result], 'quick', 1);
    expect(md).toMatch(/Machine: \d+ cores/);
    expect(md).toContain(`Node: ${process.version}`);
    expect(md).toContain(renderMarkdown(result.tables[0]!).split('\n')[0]);
    for (const b of result.bars) expect(md).toContain(b.name);
  });
});
