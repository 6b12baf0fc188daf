import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@sms-webhooks/client';
import { createTestDelivery, verifyWebhook } from '@sms-webhooks/core';
import { createEmulator } from '@sms-webhooks/emulator';
import { startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { freePort } from './free-port.js';
import { type LocalApp, startLocalApp } from './local-app.js';
import { STORE_READMES } from './readmes-stores.js';
import type { Background, BlockResult } from './run-blocks.js';

/** What a README's blocks run against, and what must hold once they all ran. */
export interface ReadmeContext {
  env: Record<string, string>;
  /**
   * After every block, with the background programs still running: `env` then holds what they printed
   * (their named groups), and `running` their output so far.
   */
  check?(results: BlockResult[], env: Record<string, string>, running: Background[]): void | Promise<void>;
  close(): Promise<void>;
}

export interface ReadmeUnderTest {
  path: string;
  /** Only the blocks under these headings; default every block. */
  sections?: string[];
  /** The package whose dependencies the blocks import, as its reader installed them; default the README's directory. */
  installed?: string;
  /** Why its background programs may end by the Ctrl-C itself rather than exit 0 (Nest re-raises it). */
  endsByCtrlC?: string;
  /**
   * Why its blocks still name the port they listen on (rather than read `PORT` with that default):
   * readme-examples.ts holds the busy ports (3000, 4010, the blocks' defaults) while every other entry runs.
   */
  fixedPort?: string;
  setup(): Promise<ReadmeContext>;
}

/** Every request the app got carries a signature made with `secret`. */
function expectVerified(app: LocalApp, secret: string | undefined, atLeast: number): void {
  expect(secret).toMatch(/^whsec_/);
  expect(app.requests.length).toBeGreaterThanOrEqual(atLeast);
  for (const r of app.requests) {
    expect(() =>
      verifyWebhook(r.body, r.headers as Record<string, string>, { secret: secret! }),
    ).not.toThrow();
  }
}

/**
 * The CLI's local loop on free ports, so it runs beside a developer's own app on 3000: "your app" on
 * `PORT` (the blocks' `${PORT:-3000}`), and `listen`'s emulator where `SMS_API_BASE_URL` points, the
 * variable `trigger` reads too.
 */
async function localLoop(atLeast: number): Promise<ReadmeContext> {
  const app = await startLocalApp(0);
  return {
    env: {
      PORT: new URL(app.url).port,
      SMS_API_BASE_URL: `http://127.0.0.1:${await freePort()}`,
      SMS_WEBHOOKS_STATE_FILE: `${process.cwd()}/test/.tmp/docs/state-${process.pid}.json`,
    },
    check: (_results, env) => expectVerified(app, env.SMS_WEBHOOK_SECRET, atLeast),
    close: () => app.close(),
  };
}

/** The stdout of the blocks that ran under `section`, in order. */
function outputOf(results: BlockResult[], section: string): string {
  const ran = results.filter((r) => r.block.section === section);
  expect(ran.length, `a block ran under "${section}"`).toBeGreaterThan(0);
  return ran.map((r) => r.stdout).join('');
}

/** The background program started from a block under `section`. */
function backgroundIn(running: Background[], section: string): Background {
  const found = running.find((r) => r.block.section === section);
  if (!found) throw new Error(`no background program from a block under "${section}"`);
  return found;
}

/** Waits until the program printed a line matching `line`: its handler ran after the answer. */
async function handled(program: Background, line: RegExp, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!line.test(program.output())) {
    if (Date.now() > deadline) expect(program.output(), `a line matching ${line}`).toMatch(line);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** `fetch`, tried again while the port is not open yet (for up to 10 s). */
async function fetchOnceUp(url: string, init: RequestInit): Promise<Response> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await fetch(url, init);
    } catch (error) {
      const refused = (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
      if (!refused || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** A node:test run's summary said every test passed, and there were some. */
function expectAllPassed(output: string): void {
  expect(output).toMatch(/^# pass [1-9]\d*$/m);
  expect(output).toMatch(/^# fail 0$/m);
}

const secretFor = (name: string) => `whsec_docs_${name}_0123456789abcdef`;

/** Add a README here to have its code blocks run by readme-examples*.test.ts. */
export const READMES: ReadmeUnderTest[] = [
  {
    path: 'packages/core/README.md',
    async setup() {
      return {
        env: { SMS_WEBHOOK_SECRET: secretFor('core') },
        check(results) {
          expect(outputOf(results, 'Verify and dispatch in ten lines')).toMatch(
            /^200 application\/json; charset=utf-8 \{"received":true\}\nmessage msg_\w+ to \+\d+ failed \(attempt 2\)\n$/,
          );
          expect(outputOf(results, 'Dispatch: hand events to a queue')).toMatch(
            /^\{"received":true\}\nmsg_\w+ delivered to \+\d+\n\{"received":true,"duplicate":true\}\n$/,
          );
          const handlers = outputOf(results, 'Handlers').split('\n').sort();
          expect(handlers).toEqual([
            '',
            expect.stringMatching(/^message\.delivered for msg_\w+$/),
            expect.stringMatching(/^msg_\w+ delivered to \+\d+ \(attempt 1\)$/),
            'saw message.delivered',
          ]);
          // Three accepted, the fourth refused unclaimed, then run once when the service retries it.
          expect(outputOf(results, 'Bounded work under bursts')).toMatch(
            /^200 \n200 \n200 \nrefused: 503 overloaded\n503 10\n(stored evt_\w+\n){3}200\nstored evt_\w+\n$/,
          );
          expect(outputOf(results, 'Checking payloads at run time')).toMatch(
            /^msg_\w+ delivered at \d{4}-\d\d-\d\dT[\d:.]+Z\n200\nmessage\.delivered evt_\w+ \(attempt 1\) does not match: updated_at: Invalid ISO datetime\n422 payload_schema_mismatch\n(valibot true\narktype true\n|arktype true\nvalibot true\n)200\n$/,
          );
          expectAllPassed(outputOf(results, 'Dedupe stores'));
          expect(outputOf(results, 'Lower-level functions')).toBe(
            'evt_1 message.delivered\ntrue\n400 signature_mismatch\n',
          );
          expectAllPassed(outputOf(results, 'Testing your handlers'));
        },
        close: async () => {},
      };
    },
  },
  {
    path: 'packages/client/README.md',
    async setup() {
      const emulator = createEmulator();
      const baseUrl = await emulator.listen();
      return {
        env: { SMS_API_KEY: 'sk_test_docs', SMS_API_BASE_URL: baseUrl },
        check() {
          expect(emulator.webhooks().map((w) => w.description)).toContain('orders service');
        },
        close: () => emulator.close(),
      };
    },
  },
  {
    path: 'packages/emulator/README.md',
    async setup() {
      const app = await startLocalApp(0);
      return {
        env: { PORT: new URL(app.url).port },
        check(results) {
          const types = app.requests.map((r) => JSON.parse(r.body).type);
          expect(types).toEqual(
            expect.arrayContaining(['message.delivered', 'message.failed', 'sms.completed']),
          );
          // The whole schedule on a VirtualClock: each attempt exactly its wait after the one before.
          expect(outputOf(results, 'Fast-forward time')).toBe(
            [0, 1, 6, 36, 156, 876].map((min, i) => `attempt ${i + 1} at +${min} min → 503\n`).join(''),
          );
        },
        close: () => app.close(),
      };
    },
  },
  { path: 'packages/cli/README.md', setup: () => localLoop(4) },
  {
    path: 'packages/ops/README.md',
    async setup() {
      const emulator = createEmulator();
      const baseUrl = await emulator.listen();
      return {
        env: { SMS_API_KEY: 'sk_test_docs_ops', SMS_API_BASE_URL: baseUrl },
        check(results) {
          const [webhook] = emulator.webhooks();
          expect(webhook).toMatchObject({
            url: 'https://app.example.com/webhooks/sms',
            description: 'orders service',
          });
          expect(outputOf(results, 'Webhooks from code')).toBe(
            `created ${webhook!.id}; store its secret (${webhook!.secret.length} characters)\n`,
          );
          // The audit continues the deploy script, which runs again: the second sync changes nothing. No
          // delivery yet: an empty window, nothing to report.
          expect(outputOf(results, 'Audit')).toBe(
            `${webhook!.id} is as declared\n{ missed: 0, retrying: 0, unfinished: 0, fine: 0 } { from: null, to: null, records: 0, leftOut: 0, tests: 0 }\n`,
          );
          expect(emulator.webhooks()).toHaveLength(1);
        },
        close: () => emulator.close(),
      };
    },
  },
  {
    // The Operations page's commands against the emulator, "your app" (answering 200) and a Redis of its own.
    path: 'docs/operations.md',
    async setup() {
      const app = await startLocalApp(0);
      const emulator = createEmulator({ allowInsecureLoopback: true });
      const baseUrl = await emulator.listen();
      const redis = await startRedisServer({ local: true });
      const secrets = mkdtempSync(join(tmpdir(), 'sms-webhooks-docs-ops-'));
      const url = `http://localhost:${new URL(app.url).port}/webhooks/sms`;
      const client = createClient({ apiKey: 'sk_test_docs_ops', baseUrl, allowInsecureLoopback: true });
      const declared = await client.createWebhook({
        url,
        events: ['message.delivered', 'message.failed', 'webhook.test'],
        description: 'orders service',
      });
      return {
        env: {
          SMS_API_KEY: 'sk_test_docs_ops',
          SMS_API_BASE_URL: baseUrl,
          WEBHOOK_URL: url,
          WEBHOOK_ID: declared.id,
          REDIS_URL: redis.url,
          SECRETS_DIR: secrets,
        },
        check(results) {
          const out = results.map((r) => r.stdout).join('');
          expect(out).toContain(`${declared.id} → ${url} matches the declaration.`);
          expect(out).toContain(`${declared.id} subscribes to what the app handles.`);
          expect(out).toContain(`${declared.id}: the app answered the test delivery 200.`);
          expect(out).toContain('missed 0 · unfinished 0 · retrying 0 · fine 0');
          // Rotated: the replacement alone is live, its secret in the 0600 file and nowhere in the output.
          const [replacement] = emulator.webhooks();
          expect(emulator.webhooks()).toHaveLength(1);
          expect(replacement!.id).not.toBe(declared.id);
          const file = join(secrets, 'sms-webhook-secret.next');
          expect(readFileSync(file, 'utf8').trim()).toBe(replacement!.secret);
          expect(statSync(file).mode & 0o777).toBe(0o600);
          expect(results.map((r) => r.stdout + r.stderr).join('')).not.toContain(replacement!.secret);
        },
        async close() {
          await emulator.close();
          await app.close();
          await redis.stop();
          rmSync(secrets, { recursive: true, force: true });
        },
      };
    },
  },
  // Each adapter's README: its app answering the send block and running its handler; then the raw-body
  // section's own app, given a delivery over body-parser's default limits. Each on a free PORT.
  ...(
    [
      ['express', 'Mount it', /^\+\d+ got msg_\w+ \(attempt 1\)$/m],
      ['fastify', 'Register it', /^\+\d+ unreachable$/m],
      ['koa', 'Mount it', /^reply from \+\d+$/m],
    ] as const
  ).map(
    ([name, section, handlerLine]): ReadmeUnderTest => ({
      path: `packages/${name}/README.md`,
      sections: ['Install', section],
      async setup() {
        return {
          env: { SMS_WEBHOOK_SECRET: secretFor(name), PORT: String(await freePort()) },
          async check(results, _env, running) {
            expect(outputOf(results, section)).toBe('200 { received: true }\n');
            await handled(backgroundIn(running, section), handlerLine);
          },
          close: async () => {},
        };
      },
    }),
  ),
  ...(['express', 'koa'] as const).map(
    (name): ReadmeUnderTest => ({
      path: `packages/${name}/README.md`,
      sections: ['The raw-body pitfall, and what we do about it'],
      endsByCtrlC: 'the app with a body parser in front is a variant, with no shutdown code of its own',
      async setup() {
        const secret = secretFor(name);
        return {
          env: { SMS_WEBHOOK_SECRET: secret, PORT: String(await freePort()) },
          async check(_results, env, running) {
            // 200 KB: over body-parser's default 100 KB (express.raw) and @koa/bodyparser's 56 KB form
            // limit, under maxBodyBytes; the parser's limits set as the README says let it through.
            const d = createTestDelivery('message.delivered', {
              secret,
              data: { metadata: { note: 'x'.repeat(200_000) } },
            });
            const res = await fetch(`http://localhost:${env.PORT}/webhooks/sms`, {
              method: 'POST',
              body: d.body,
              headers: d.headers,
            });
            expect([res.status, await res.json()]).toEqual([200, { received: true }]);
            await handled(running[0]!, new RegExp(`^\\+\\d+ got ${d.event.data.id}$`, 'm'));
          },
          close: async () => {},
        };
      },
    }),
  ),
  {
    path: 'packages/express/README.md',
    sections: ['Google Cloud Functions and Firebase'],
    async setup() {
      return {
        env: { SMS_WEBHOOK_SECRET: secretFor('cloud_functions') },
        check(results) {
          expect(outputOf(results, 'Google Cloud Functions and Firebase')).toMatch(
            /^\+\d+ got msg_\w+\n200 \{"received":true\}\n$/,
          );
        },
        close: async () => {},
      };
    },
  },
  {
    path: 'packages/otel/README.md',
    async setup() {
      return {
        env: { SMS_WEBHOOK_SECRET: secretFor('otel') },
        check(results) {
          // The console exporters' output, once the providers shut down: the spans, then the metrics.
          const output = outputOf(results, 'Use it');
          expect(output).toMatch(/^\+\d+ got msg_\w+$/m);
          expect(output).toContain("name: 'sms-webhooks delivery'");
          expect(output).toMatch(/'sms_webhooks\.outcome': 'received'/);
          expect(output).toContain("name: 'sms_webhooks.deliveries'");
        },
        close: async () => {},
      };
    },
  },
  {
    path: 'packages/nestjs/README.md',
    endsByCtrlC: "Nest's shutdown hooks re-raise the signal once the app has closed (enableShutdownHooks)",
    async setup() {
      const secret = secretFor('nestjs');
      return {
        env: { SMS_WEBHOOK_SECRET: secret, PORT: String(await freePort()) },
        async check(_results, env, running) {
          // The app the two Setup blocks make: the route is mounted, and the handler runs with its
          // injected OrdersService (by type: the decorator metadata tsc emits). Nest says it started
          // at the end of init(), just before listen() opens the port: wait for that.
          const d = createTestDelivery('message.delivered', { secret });
          const res = await fetchOnceUp(`http://localhost:${env.PORT}/webhooks/sms`, {
            method: 'POST',
            body: d.body,
            headers: d.headers,
          });
          expect([res.status, await res.json()]).toEqual([200, { received: true }]);
          const line = `message ${d.event.data.id} to ${d.event.data.to}: delivered`;
          await handled(backgroundIn(running, 'Setup'), new RegExp(`^${line.replace(/\+/g, '\\+')}$`, 'm'));
        },
        close: async () => {},
      };
    },
  },
  {
    // Hono on a free PORT, the Worker on the port workerd picks (its PORT from then on).
    path: 'packages/web/README.md',
    sections: ['@sms-webhooks/web', 'Hono', 'Next.js and Vercel', 'Cloudflare Workers'],
    async setup() {
      const secret = secretFor('web');
      return {
        env: { SMS_WEBHOOK_SECRET: secret, PORT: String(await freePort()) },
        async check(results, env, running) {
          expect(outputOf(results, 'Hono')).toBe('200 { received: true }\n');
          await handled(backgroundIn(running, 'Hono'), /^message msg_\w+ delivered to \+\d+$/m);
          // The Worker, as workerd serves it: accepted, handled under ctx.waitUntil (its claim completed,
          // so a redelivery is a duplicate), and a forged delivery refused.
          const worker = `http://localhost:${env.PORT}/`;
          const d = createTestDelivery('message.failed', { secret });
          const send = (body = d.body, headers = d.headers) =>
            fetch(worker, { method: 'POST', body, headers });
          const first = await send();
          expect([first.status, await first.json()]).toEqual([200, { received: true }]);
          await handled(backgroundIn(running, 'Cloudflare Workers'), /message msg_\w+ to \+\d+ failed/);
          expect(await (await send()).json()).toEqual({ received: true, duplicate: true });
          const forged = createTestDelivery('message.failed', { secret: secretFor('forged') });
          expect((await send(forged.body, forged.headers)).status).toBe(400);
        },
        close: async () => {},
      };
    },
  },
  // The Bun and the Deno server, each on a free PORT of its own (both read PORT).
  ...(['Bun', 'Deno'] as const).map(
    (section): ReadmeUnderTest => ({
      path: 'packages/web/README.md',
      sections: [section],
      async setup() {
        const secret = secretFor(section.toLowerCase());
        return {
          env: { SMS_WEBHOOK_SECRET: secret, PORT: String(await freePort()) },
          async check(_results, env, running) {
            const server = backgroundIn(running, section);
            const d = createTestDelivery('message.delivered', { secret });
            const res = await fetch(`http://localhost:${env.PORT}/`, {
              method: 'POST',
              body: d.body,
              headers: d.headers,
            });
            expect(res.status, server.output()).toBe(200);
            await handled(server, new RegExp(`^message ${d.event.data.id} delivered to \\+\\d+$`, 'm'));
          },
          close: async () => {},
        };
      },
    }),
  ),
  {
    path: 'packages/lambda/README.md',
    async setup() {
      return {
        env: { SMS_WEBHOOK_SECRET: secretFor('lambda') },
        check(results) {
          // The handler ran before the first answer came back; the base64 repeat is the same event.
          expect(outputOf(results, 'Use it')).toMatch(
            /^message msg_\w+ delivered to \+\d+\n200 \{"received":true\}\n200 \{"received":true,"duplicate":true\}\n$/,
          );
        },
        close: async () => {},
      };
    },
  },
  {
    // The first example; The local loop names port 3000 too, so it runs in the entry after this one.
    path: 'README.md',
    sections: ['Your first receiver'],
    async setup() {
      const secret = secretFor('top');
      return {
        env: { SMS_WEBHOOK_SECRET: secret, PORT: String(await freePort()) },
        async check(_results, env, running) {
          const app = backgroundIn(running, 'Your first receiver');
          for (const type of ['message.delivered', 'message.failed'] as const) {
            const d = createTestDelivery(type, { secret });
            const res = await fetch(`http://localhost:${env.PORT}/webhooks/sms`, {
              method: 'POST',
              body: d.body,
              headers: d.headers,
            });
            expect([res.status, await res.json()]).toEqual([200, { received: true }]);
          }
          await handled(app, /^msg_\w+ delivered to \+\d+$/m);
          await handled(app, /^SMS to \+\d+ failed: unreachable \(attempt 1\)$/m);
        },
        close: async () => {},
      };
    },
  },
  { path: 'README.md', sections: ['The local loop'], setup: () => localLoop(1) },
  ...STORE_READMES,
];
