import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createFunction } from '@vercel/fun';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { albEvent, httpApiEvent, restApiEvent } from './events.js';
import { secret, signedDelivery } from './sign.js';

// End to end through a local Lambda runtime from the npm registry: Vercel's `fun` starts the function in
// its own Node process behind a Lambda Runtime API, passes each event and result as JSON through it, and
// freezes the process with SIGSTOP as soon as the result is in, as Lambda does.

const PACKAGES = fileURLToPath(new URL('../../', import.meta.url));
const esbuild = createRequire(createRequire(import.meta.url).resolve('tsup'))('esbuild') as {
  build(options: Record<string, unknown>): Promise<unknown>;
};

const HANDLER_MS = 500;
let dir: string;

/** The fixture and the package sources as one CommonJS file, the way a deployment bundles them. */
async function bundleFunction(outfile: string) {
  await esbuild.build({
    entryPoints: [fileURLToPath(new URL('./fixtures/function.ts', import.meta.url))],
    bundle: true,
    outfile,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    logLevel: 'silent',
    plugins: [
      {
        name: 'sms-webhooks-sources',
        setup(build: {
          onResolve(o: { filter: RegExp }, f: (a: { path: string }) => { path: string }): void;
        }) {
          build.onResolve({ filter: /^@sms-webhooks\// }, ({ path }) => {
            const [, pkg, sub] = /^@sms-webhooks\/([a-z-]+)(?:\/([a-z-]+))?$/.exec(path)!;
            // What only our packages share: the private package in internal/, outside packages/.
            if (pkg === 'internal') return { path: `${PACKAGES}../internal/src/index.ts` };
            // A sub-entry is a file (core's store.ts) or a folder with an index.ts (core's adapter/).
            const file = `${PACKAGES}${pkg}/src/${sub}.ts`;
            if (sub !== undefined && existsSync(file)) return { path: file };
            return { path: `${PACKAGES}${pkg}/src/${sub ? `${sub}/` : ''}index.ts` };
          });
        },
      },
    ],
  });
}

async function startFunction(name: string, env: Record<string, string> = {}) {
  const handled = join(dir, `${name}.handled`);
  writeFileSync(handled, '');
  const fn = await createFunction({
    Code: { Directory: join(dir, 'function') },
    Handler: 'index.handler',
    Runtime: 'nodejs',
    MemorySize: 256,
    Timeout: 30,
    Environment: {
      Variables: {
        SMS_WEBHOOK_SECRET: secret,
        HANDLED_FILE: handled,
        HANDLER_MS: String(HANDLER_MS),
        ...env,
      },
    },
  });
  const ids = () => readFileSync(handled, 'utf8').split('\n').filter(Boolean);
  return { fn, ids };
}

type Result = { statusCode: number; body: string; headers?: Record<string, string> };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sms-webhooks-lambda-'));
  await bundleFunction(join(dir, 'function', 'index.js'));
  expect(existsSync(join(dir, 'function', 'index.js'))).toBe(true);
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lambdaHandler in a local Lambda runtime (@vercel/fun)', () => {
  let fun: Awaited<ReturnType<typeof startFunction>>;
  beforeAll(async () => {
    fun = await startFunction('default');
  }, 60_000);
  afterAll(() => fun.fn.destroy());

  it.each([false, true])(
    'HTTP API: answers a signed delivery 200 once its handler has finished, then duplicate (base64: %s)',
    async (base64) => {
      const d = signedDelivery();
      const event = httpApiEvent({ headers: d.headers, body: d.body, base64 });
      const first = (await fun.fn(event)) as Result;
      expect(first.statusCode).toBe(200);
      expect(JSON.parse(first.body)).toEqual({ received: true });
      // The process was frozen the moment the result was in: the handler ran before it.
      expect(fun.ids()).toEqual(expect.arrayContaining([d.id]));
      const again = (await fun.fn(event)) as Result;
      expect(JSON.parse(again.body)).toEqual({ received: true, duplicate: true });
      expect(fun.ids().filter((id) => id === d.id)).toHaveLength(1);
    },
    30_000,
  );

  it('HTTP API: refuses a forged delivery 400 and runs no handler', async () => {
    const before = fun.ids().length;
    const d = signedDelivery('message.delivered', 'whsec_someone_else_entirely_0123456');
    const result = (await fun.fn(httpApiEvent({ headers: d.headers, body: d.body }))) as Result;
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body).error.code).toBe('signature_mismatch');
    expect(result.headers?.['content-type']).toMatch(/^application\/json/);
    expect(fun.ids()).toHaveLength(before);
  });

  it('REST API and ALB events: answered 200 with the handler finished', async () => {
    for (const make of [
      (d: ReturnType<typeof signedDelivery>) =>
        restApiEvent({ headers: d.headers, body: d.body, base64: true }),
      (d: ReturnType<typeof signedDelivery>) => albEvent({ headers: d.headers, body: d.body }, true),
    ]) {
      const d = signedDelivery();
      const result = (await fun.fn(make(d))) as Result;
      expect(result.statusCode).toBe(200);
      expect(fun.ids()).toContain(d.id);
    }
  }, 30_000);
});

describe("a handler that fails once, retried after 1 s (the receiver's retry) in a local Lambda runtime", () => {
  let fun: Awaited<ReturnType<typeof startFunction>>;
  beforeAll(async () => {
    fun = await startFunction('retry', { FAIL_ONCE: '1' });
  }, 60_000);
  afterAll(() => fun.fn.destroy());

  it.each([
    [
      'HTTP API',
      (d: ReturnType<typeof signedDelivery>) => httpApiEvent({ headers: d.headers, body: d.body }),
    ],
    [
      'REST API',
      (d: ReturnType<typeof signedDelivery>) => restApiEvent({ headers: d.headers, body: d.body }),
    ],
    ['ALB', (d: ReturnType<typeof signedDelivery>) => albEvent({ headers: d.headers, body: d.body }, true)],
  ])(
    '%s: the invocation stays alive through the retry wait, answers 200 and the retry has run',
    async (_, make) => {
      const d = signedDelivery();
      const result = (await fun.fn(make(d))) as Result;
      expect(result.statusCode).toBe(200);
      expect(JSON.parse(result.body)).toEqual({ received: true });
      expect(fun.ids()).toContain(d.id);
    },
    30_000,
  );
});

describe("answerBeforeHandlers: 'handlers-may-never-finish' in a local Lambda runtime", () => {
  it('returns first; the frozen process finishes the handler only when a later invocation thaws it', async () => {
    const { fn, ids } = await startFunction('early', { ANSWER_BEFORE_HANDLERS: '1' });
    try {
      const d = signedDelivery();
      const result = (await fn(httpApiEvent({ headers: d.headers, body: d.body }))) as Result;
      expect(result.statusCode).toBe(200);
      // Well past the handler's own time: frozen, it cannot have written.
      await sleep(HANDLER_MS * 3);
      expect(ids()).toEqual([]);
      // A GET thaws the process (405); the handler then finishes during that invocation or a later one.
      const thaw = (await fn(httpApiEvent({ method: 'GET', headers: {}, body: '' }))) as Result;
      expect(thaw.statusCode).toBe(405);
      for (let i = 0; i < 20 && ids().length === 0; i++) {
        await sleep(HANDLER_MS);
        await fn(httpApiEvent({ method: 'GET', headers: {}, body: '' }));
      }
      expect(ids()).toEqual([d.id]);
    } finally {
      await fn.destroy();
    }
  }, 60_000);
});
