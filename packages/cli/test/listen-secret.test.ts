import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@sms-webhooks/client';
import { listenInProcess } from './in-process-listen.js';
import { type App, startApp } from './receiving-app.js';

// Issue 25, point 1: `listen`'s emulator gave its stable secret (the one the app trusts) to any local
// process that asked for a webhook with any sk_test_ key. Another process must get a secret of its own.

const READY = /^export SMS_WEBHOOK_SECRET=(whsec_\S+)$/;
const API_BASE = /^ {2}emulator (http:\/\/\S+) /;

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('listen keeps its secret to itself', () => {
  it('gives a webhook created by another local client a secret of its own; trigger still reaches the app', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'sms-webhooks-secret-')), 'state.json');
    app = await startApp('whsec_unused');
    const listen = listenInProcess(['--forward-to', app.url, '--port', '0', '--state-file', stateFile]);
    try {
      const [, secret] = await listen.waitFor(READY);
      const [, apiBase] = await listen.waitFor(API_BASE);

      // What any process on the machine can do: its own sk_test_ key, its own webhook.
      for (const apiKey of ['sk_test_anything', 'sk_test_local']) {
        const foreign = createClient({ apiKey, baseUrl: apiBase!, allowInsecureLoopback: true });
        const webhook = await foreign.createWebhook({
          url: 'http://127.0.0.1:9/x',
          events: ['message.sent'],
        });
        expect(webhook.secret).toMatch(/^whsec_/);
        expect(webhook.secret).not.toBe(secret);
        // Nor can it read listen's webhook (and its secret) from the list.
        const listed = await foreign.listWebhooks();
        expect(listed.data.map((w) => w.id)).toEqual([webhook.id]);
      }

      // `trigger` goes through the emulator's own routes, no API key: the app still gets signed deliveries.
      await app.close();
      app = await startApp(secret!, { port: Number(new URL(app.url).port) });
      const res = await fetch(`${apiBase}/_emulator/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'webhook.test' }),
      });
      expect(res.status).toBe(202);
      await vi.waitFor(() => expect(app!.handled.map((h) => h.split(' ')[0])).toContain('webhook.test'));
    } finally {
      expect(await listen.stop()).toBe(0);
    }
  });
});
