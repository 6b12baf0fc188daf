import { createServer } from 'node:net';
import { runCli } from './helpers.js';
import { listenInProcess } from './in-process-listen.js';
import { type App, startApp } from './receiving-app.js';

// Issue 27, point 5: the README blocks run on free ports. `listen` starts its emulator where
// $SMS_API_BASE_URL points (the variable `trigger` and `resend` read), so one variable moves them all.

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('listen without --port', () => {
  it("starts its emulator on $SMS_API_BASE_URL's port, where trigger finds it", async () => {
    app = await startApp('whsec_port_0123456789abcdef');
    const base = `http://127.0.0.1:${await freePort()}`;
    const env = { SMS_API_BASE_URL: base };
    const listen = listenInProcess(
      ['--forward-to', app.url, '--secret', 'whsec_port_0123456789abcdef', '--events', 'webhook.test'],
      env,
    );
    try {
      await listen.waitFor(new RegExp(`^ {2}emulator ${base.replace(/\./g, '\\.')} `));
      const triggered = await runCli(['trigger', 'webhook.test'], env);
      expect(triggered.stderr).toBe('');
      await listen.waitFor(/webhook\.test\s+evt_\w+\s+attempt 1\s+→ 200/);
    } finally {
      expect(await listen.stop()).toBe(0);
    }
  });
});
