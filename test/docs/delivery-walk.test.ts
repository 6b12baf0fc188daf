/**
 * Core's README lists the files one Express delivery passes through ("One delivery, step by step"), before
 * its 200 and after it. A list kept by hand drifts with every feature, so this test records the files a real
 * delivery runs and compares: V8's precise coverage (the public `node:inspector` API) counts the calls of
 * every function, and the files under `packages/<name>/src` (and the private `internal/src`) with a
 * function called while one signed delivery goes to a real Express app on port 0 are the walk. Module
 * evaluation and the live-binding getters vitest's transform adds for re-exports are not steps, so they
 * are left out.
 */
import { readFileSync } from 'node:fs';
import { request, type Server } from 'node:http';
import { Session } from 'node:inspector';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { webhookMiddleware } from '@sms-webhooks/express';
import express from 'express';

const README = fileURLToPath(new URL('../../packages/core/README.md', import.meta.url));
const MAX_BEFORE_200 = 12;

interface FunctionCoverage {
  functionName: string;
  ranges: { startOffset: number; endOffset: number; count: number }[];
}
interface ScriptCoverage {
  scriptId: string;
  url: string;
  functions: FunctionCoverage[];
}

/** The inspector's same-thread session answers synchronously, so a snapshot can be taken inside `res.end`. */
function post<T>(session: Session, method: string, params?: object): T {
  let answer: { result?: T; error?: Error } | undefined;
  session.post(method, params ?? {}, (error, result) => {
    answer = { result: result as T, error: error ?? undefined };
  });
  if (answer === undefined) throw new Error(`${method} did not answer synchronously`);
  if (answer.error) throw answer.error;
  return answer.result as T;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** A workspace source as the README names it: `core/src/…` for packages/core, `internal/src/…` as it is. */
function sourceName(url: string): string | undefined {
  if (!url.startsWith('file://')) return undefined;
  const path = fileURLToPath(url.split('?')[0] ?? '');
  if (!path.startsWith(ROOT) || !path.endsWith('.ts')) return undefined;
  const file = path.slice(ROOT.length);
  return /^(?:packages\/)?([a-z-]+\/src\/.+)$/.exec(file)?.[1];
}
// What vitest's module transform adds to each module: the wrapper it evaluates, and a getter per export.
const TRANSFORM_GETTER = /^\(\) => \{ try \{ return [\w$.]+ \} catch \{\} \}/;
const MODULE_WRAPPER = /^async \(__vite_ssr_exports__/;

function recorder(session: Session) {
  const sources = new Map<string, string>();
  const sourceOf = (scriptId: string) => {
    let text = sources.get(scriptId);
    if (text === undefined) {
      text = post<{ scriptSource: string }>(session, 'Debugger.getScriptSource', { scriptId }).scriptSource;
      sources.set(scriptId, text);
    }
    return text;
  };
  /** The files whose functions ran since the last take, as `<package>/src/<path>`, with those functions. */
  return (): Map<string, string[]> => {
    const { result } = post<{ result: ScriptCoverage[] }>(session, 'Profiler.takePreciseCoverage');
    const files = new Map<string, string[]>();
    for (const script of result) {
      const file = sourceName(script.url);
      if (file === undefined) continue;
      const ran: string[] = [];
      for (const fn of script.functions) {
        const range = fn.ranges[0];
        if (range === undefined || range.count === 0 || range.startOffset === 0) continue;
        const text = sourceOf(script.scriptId).slice(range.startOffset, range.startOffset + 120);
        if (TRANSFORM_GETTER.test(text) || MODULE_WRAPPER.test(text)) continue;
        ran.push(fn.functionName || '(anonymous)');
      }
      if (ran.length > 0) files.set(file, ran);
    }
    return files;
  };
}

interface Walk {
  before: Map<string, string[]>;
  after: Map<string, string[]>;
}

/**
 * One delivery after a warm-up one (the steady state: a store's `init`, first-use caches and the like are
 * behind it): coverage is reset right before the request, taken when the app ends its 200 (inside
 * `res.end`, so nothing after the answer is in it), and taken again once the handler ran and the outcome
 * was recorded.
 */
async function recordWalk(): Promise<Walk> {
  const session = new Session();
  session.connect();
  post(session, 'Profiler.enable');
  post(session, 'Debugger.enable');
  post(session, 'Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const take = recorder(session);
  const secret = 'whsec_walk_test_secret';
  const receiver = createReceiver({ secret });
  let handled: () => void = () => {};
  receiver.on('message.delivered', () => handled());
  let onAnswer: (() => void) | undefined;
  const app = express();
  app.use((_req, res, next) => {
    const end = res.end;
    res.end = function (this: typeof res, ...args: unknown[]) {
      onAnswer?.();
      return (end as (...a: unknown[]) => typeof res).apply(this, args);
    } as typeof res.end;
    next();
  });
  app.all('/webhooks/sms', webhookMiddleware(receiver));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;

  const send = async (id: string, snapshot: boolean) => {
    const delivery = createTestDelivery('message.delivered', { secret, id });
    const ran = new Promise<void>((resolve) => {
      handled = resolve;
    });
    let before: Map<string, string[]> | undefined;
    if (snapshot) {
      onAnswer = () => {
        before = take();
        onAnswer = undefined;
      };
      take(); // reset: what ran until now is not this delivery's
    }
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        { port, host: '127.0.0.1', method: 'POST', path: '/webhooks/sms', headers: delivery.headers },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        },
      );
      req.on('error', reject);
      req.end(delivery.body);
    });
    expect(status).toBe(200);
    await ran;
    // The handler resolved; the outcome is recorded a few turns later. Only timers of this test run here.
    await new Promise((resolve) => setTimeout(resolve, 100));
    return snapshot ? { before: before ?? new Map(), after: take() } : undefined;
  };

  try {
    await send('evt_walk_warm_up', false);
    const walk = await send('evt_walk_measured', true);
    if (walk === undefined) throw new Error('no walk recorded');
    return walk;
  } finally {
    post(session, 'Profiler.stopPreciseCoverage');
    session.disconnect();
    await new Promise((resolve) => server.close(resolve));
    await receiver.close();
  }
}

/**
 * The README's two lists, from the section "One delivery, step by step": the numbered items before the 200
 * and the bullet items under the paragraph that starts "After the 200", each naming its file first in
 * backticks (`express/src/webhook-middleware.ts`).
 */
function readmeWalk(markdown: string): { before: string[]; after: string[] } {
  const start = markdown.indexOf('### One delivery, step by step');
  if (start < 0) throw new Error('core README has no "### One delivery, step by step" section');
  const end = markdown.indexOf('\n## ', start);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const split = section.indexOf('\nAfter the 200');
  if (split < 0) throw new Error('the walk section has no paragraph starting "After the 200"');
  const items = (text: string, marker: RegExp) =>
    [...text.matchAll(marker)].map((m) => m[1] as string).filter((f) => f.includes('/src/'));
  return {
    before: items(section.slice(0, split), /^\d+\. `([^`]+)`/gm),
    after: items(section.slice(split), /^- `([^`]+)`/gm),
  };
}

/** What a list says and the trace does not, and the other way round, as lines naming the files. */
function walkDifferences(when: string, listed: readonly string[], ran: ReadonlyMap<string, string[]>) {
  const missing = [...ran.keys()]
    .filter((f) => !listed.includes(f))
    .map((f) => `${when}: ${f} ran (${ran.get(f)?.join(', ')}) and is not listed`);
  const extra = listed.filter((f) => !ran.has(f)).map((f) => `${when}: ${f} is listed and did not run`);
  return [...missing, ...extra];
}

describe("core README's walk of one Express delivery", () => {
  let walk: Walk;
  beforeAll(async () => {
    walk = await recordWalk();
    console.log(
      JSON.stringify(
        {
          before: [...walk.before].map(([f, fns]) => `${f}: ${fns.join(' ')}`),
          after: [...walk.after].map(([f, fns]) => `${f}: ${fns.join(' ')}`),
        },
        null,
        1,
      ),
    );
  });

  it('lists the files the delivery ran before its 200 and after it, no more, no fewer', () => {
    const listed = readmeWalk(readFileSync(README, 'utf8'));
    expect([
      ...walkDifferences('before the 200', listed.before, walk.before),
      ...walkDifferences('after the 200', listed.after, walk.after),
    ]).toEqual([]);
  });

  it(`passes through at most ${MAX_BEFORE_200} files before its 200`, () => {
    expect([...walk.before.keys()].length, [...walk.before.keys()].join('\n')).toBeLessThanOrEqual(
      MAX_BEFORE_200,
    );
  });

  it('fails on a wrong list, either way (the check above can fail)', () => {
    const ran = new Map([
      ['core/src/receiver/pipeline.ts', ['handle']],
      ['core/src/verify/verify-webhook.ts', ['verifyReceived']],
    ]);
    expect(
      walkDifferences('before the 200', ['core/src/receiver/pipeline.ts', 'core/src/x.ts'], ran),
    ).toEqual([
      'before the 200: core/src/verify/verify-webhook.ts ran (verifyReceived) and is not listed',
      'before the 200: core/src/x.ts is listed and did not run',
    ]);
    const listed = readmeWalk(
      '### One delivery, step by step\n\n1. `a/src/a.ts`: one\n2. `b/src/b.ts`: two\n\nAfter the 200:\n\n- `c/src/c.ts`: three\n\n## Next\n1. `d/src/d.ts`\n',
    );
    expect(listed).toEqual({ before: ['a/src/a.ts', 'b/src/b.ts'], after: ['c/src/c.ts'] });
  });
});
