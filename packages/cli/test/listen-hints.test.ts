import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runCli } from './helpers.js';
import { listenInProcess } from './in-process-listen.js';
import { type App, startApp } from './receiving-app.js';

// Issue 27, point 2: a refused delivery says why. A 404/405 names the path and port nothing is mounted
// at; a JSON refusal shows the app's error code, with what it most likely means.

const API_BASE = /^ {2}emulator (http:\/\/\S+) /;

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function trigger(apiBase: string): Promise<void> {
  const res = await runCli(['trigger', 'webhook.test', '--api-base', apiBase]);
  expect(res.stderr).toBe('');
}

describe('listen explains a refused delivery', () => {
  it('404: says nothing is mounted at that path and port, once', async () => {
    const server = createServer((req, res) => {
      req.resume();
      res
        .writeHead(req.url === '/webhooks/sms' ? 200 : 404, { 'content-type': 'text/html' })
        .end('Cannot POST');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const listen = listenInProcess([
      '--forward-to',
      `http://127.0.0.1:${port}/webhooks`,
      '--port',
      '0',
      '--time-scale',
      '1/1000',
      '--events',
      'webhook.test',
    ]);
    try {
      const [, apiBase] = await listen.waitFor(API_BASE);
      await trigger(apiBase!);
      await listen.waitFor(/attempt 1\s+→ 404 \(\d+ ms\)\s+next retry/);
      await listen.waitFor(
        new RegExp(
          `^ {2}↳ nothing is mounted at /webhooks on 127\\.0\\.0\\.1:${port}: is --forward-to the path`,
        ),
      );
      await listen.waitFor(/attempt 2\s+→ 404/);
      expect(listen.lines.filter((l) => l.includes('↳'))).toHaveLength(1);
    } finally {
      await listen.stop();
      server.close();
      server.closeAllConnections();
    }
  });

  it("400 from the receiver: shows the app's error code and asks about the secret (also in --json)", async () => {
    app = await startApp('whsec_not_the_one_listen_printed');
    for (const json of [false, true]) {
      const listen = listenInProcess([
        '--forward-to',
        app.url,
        '--port',
        '0',
        '--secret',
        'whsec_the_one_listen_printed_0123',
        '--events',
        'webhook.test',
        ...(json ? ['--json'] : []),
      ]);
      try {
        if (json) {
          const [ready] = await listen.waitFor(/^\{"ready":true.*$/);
          await trigger(JSON.parse(ready!).api_base);
          const [line] = await listen.waitFor(/^\{.*"attempt":1.*$/);
          expect(JSON.parse(line!)).toMatchObject({
            status: 400,
            code: 'signature_mismatch',
            hint: 'is the app using the secret above (SMS_WEBHOOK_SECRET)?',
          });
        } else {
          const [, apiBase] = await listen.waitFor(API_BASE);
          await trigger(apiBase!);
          await listen.waitFor(/attempt 1\s+→ 400 signature_mismatch \(\d+ ms\)\s+next retry/);
          await listen.waitFor(/^ {2}↳ is the app using the secret above \(SMS_WEBHOOK_SECRET\)\?$/);
        }
      } finally {
        await listen.stop();
      }
    }
  });
});
