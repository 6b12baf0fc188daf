import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '@sms-webhooks/test-helpers/free-port';
import { nodeProgram } from '@sms-webhooks/test-helpers/node-program';
import { cli, type Running, root, start } from '../../packages/cli/test/spawn-cli.js';

// Issue 16's "done when": `sms-webhooks listen --forward-to …` in one shell, the app in another; either
// restarts without re-pasting a secret, and deliveries and retries stream in listen's output.

const stateFile = join(mkdtempSync(join(tmpdir(), 'sms-webhooks-loop-')), 'state.json');
const READY = /^export SMS_WEBHOOK_SECRET=(whsec_\S+)$/;
const API_BASE = /^ {2}emulator (http:\/\/\S+) /;

interface UserApp {
  lines: string[];
  stop(): Promise<void>;
}

/** The app in its own process, started with the secret pasted from listen's export line. */
async function startApp(port: number, secret: string): Promise<UserApp> {
  const child = spawn(process.execPath, [await nodeProgram(join(root, 'test/e2e/fixtures/user-app.ts'))], {
    cwd: root,
    env: { ...process.env, PORT: String(port), SMS_WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line === 'app ready') resolve();
    });
    child.on('exit', () => reject(new Error('the app exited before it was ready')));
  });
  return {
    lines,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

let listen: Running | undefined;
let app: UserApp | undefined;
afterEach(async () => {
  await listen?.interrupt();
  await app?.stop();
});

it('listen and the app each restart without a new secret; deliveries and a retry stream', async () => {
  const port = await freePort();
  const forwardTo = `http://127.0.0.1:${port}/webhooks`;
  const listenArgs = [
    'listen',
    '--forward-to',
    forwardTo,
    '--port',
    '0',
    '--time-scale',
    '1/1000',
    '--state-file',
    stateFile,
  ];

  listen = start(listenArgs);
  const [, secret] = await listen.waitFor(READY);
  let [, apiBase] = await listen.waitFor(API_BASE);
  app = await startApp(port, secret!);

  // 1. A delivery streams with its status and latency, and the app handled it.
  const first = JSON.parse(
    (await cli(['trigger', 'message.delivered', '--api-base', apiBase!, '--json'])).stdout,
  );
  const delivered = first.events.find((e: { type: string }) => e.type === 'message.delivered').id;
  await listen.waitFor(
    new RegExp(`message\\.delivered\\s+${delivered}\\s+attempt 1\\s+→ 200 \\(\\d+ ms\\)$`),
  );
  await vi.waitFor(() => expect(app!.lines).toContain(`handled message.delivered ${delivered} attempt 1`));

  // 2. The app is down: listen shows the refused attempt and its next retry; the app comes back with the
  //    same pasted secret and the retry lands.
  await app.stop();
  const second = JSON.parse(
    (await cli(['trigger', 'message.sent', '--api-base', apiBase!, '--json'])).stdout,
  );
  const sent = second.events.find((e: { type: string }) => e.type === 'message.sent').id;
  await listen.waitFor(
    new RegExp(`${sent}\\s+attempt 1\\s+→ connect ECONNREFUSED .*next retry .*\\(attempt 2\\)$`),
  );
  app = await startApp(port, secret!);
  // At 1/1000 the waits are 60 ms, 300 ms, 1.8 s …: whichever retry comes after the restart lands. The
  // retries come 0.06, 0.36, 2.2, 9.4 and 52.6 s after the first attempt: an app that takes more than
  // 9 s to start on a loaded machine is reached only by the last one.
  const [, attempt] = await listen.waitFor(new RegExp(`${sent}\\s+attempt (\\d)\\s+→ 200`), 70_000);
  expect(Number(attempt)).toBeGreaterThan(1);
  await vi.waitFor(() => expect(app!.lines).toContain(`handled message.sent ${sent} attempt ${attempt}`));

  // 3. listen restarts: the same secret, so the running app verifies the next delivery unchanged.
  expect(await listen.interrupt()).toBe(0);
  listen = start(listenArgs);
  expect((await listen.waitFor(READY))[1]).toBe(secret);
  [, apiBase] = await listen.waitFor(API_BASE);
  const third = JSON.parse(
    (await cli(['trigger', 'sms.completed', '--api-base', apiBase!, '--json'])).stdout,
  );
  const completed = third.events.find((e: { type: string }) => e.type === 'sms.completed').id;
  await listen.waitFor(new RegExp(`sms\\.completed\\s+${completed}\\s+attempt 1\\s+→ 200`));
  await vi.waitFor(() => expect(app!.lines).toContain(`handled sms.completed ${completed} attempt 1`));
}, 150_000);
