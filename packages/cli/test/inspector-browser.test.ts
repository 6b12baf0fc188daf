import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { listenInProcess } from './in-process-listen.js';
import { type App, startApp } from './receiving-app.js';

// Issue 27, point 3: `listen --ui`, the inspector page, in a real headless Chromium (Debian's, installed
// by .ci/run): a triggered event appears, its failed attempt and the retry appear, resend works.

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const SECRET = 'whsec_inspector_0123456789abcdef';
const INSPECTOR = /^Inspector: (http:\/\/127\.0\.0\.1:\d+\/) /;

let app: App;
let listen: ReturnType<typeof listenInProcess>;
let inspectorUrl: string;
let profile: string;
let browser: BrowserContext;

beforeAll(async () => {
  // Refuses the first delivery (500), so the emulator retries 1 min × 1/10 = 6 s later: time enough, on a
  // loaded machine, to read the page while the retry is still to come.
  app = await startApp(SECRET, { failFirst: 1 });
  const stateFile = join(mkdtempSync(join(tmpdir(), 'sms-webhooks-ui-')), 'state.json');
  listen = listenInProcess([
    '--forward-to',
    app.url,
    '--port',
    '0',
    '--ui',
    '--ui-port',
    '0',
    '--secret',
    SECRET,
    '--time-scale',
    '1/10',
    '--events',
    'webhook.test,message.sent',
    '--state-file',
    stateFile,
  ]);
  [, inspectorUrl] = (await listen.waitFor(INSPECTOR)) as [string, string];
  profile = mkdtempSync(join(tmpdir(), 'sms-webhooks-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await listen?.stop();
  await app?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

describe('listen --ui in Chromium', () => {
  it('shows a triggered event, its failed attempt and the retry live, and resends it', async () => {
    const page = await browser.newPage();
    await page.goto(inspectorUrl);
    await page.locator('#status.live').waitFor();
    await page.selectOption('#trigger-type', 'webhook.test');
    await page.click('#trigger');

    const card = page.locator('section.event').filter({ hasText: 'webhook.test' });
    // The style sheet loaded (the page's CSP allows nothing inline).
    expect(await page.locator('header').evaluate((h) => getComputedStyle(h).position)).toBe('sticky');
    // Attempt 1: the app's 500, with the retry it scheduled and the rest of the schedule.
    const first = card.locator('tr[data-attempt="1"]');
    await first.waitFor();
    expect(await first.getAttribute('data-status')).toBe('500');
    expect(await first.locator('.next').textContent()).toMatch(/^next retry /);
    expect(await card.locator('.schedule').textContent()).toContain(
      'then +30 s, +3 min, +12 min, +1.2 h (6 attempts in all)',
    );
    // Attempt 2 arrives by itself (the retry), answered 200.
    const second = card.locator('tr[data-attempt="2"]');
    await second.waitFor();
    expect(await second.getAttribute('data-status')).toBe('200');
    const id = await card.getAttribute('data-event-id');
    expect(id).toMatch(/^evt_/);
    expect(await card.locator('pre.body').textContent()).toContain(`"id":"${id}"`);
    const headers = await card.locator('pre.request-headers').first().textContent();
    expect(headers).toMatch(/^x-service-signature: t=\d+,v1=[0-9a-f]{64}$/m);
    expect(headers).toContain(`x-service-event-id: ${id}`);
    expect(headers).not.toContain(SECRET);

    await card.locator('button.resend').click();
    await card.locator('tr[data-attempt="3"][data-status="200"]').waitFor();
    expect(await page.locator('#message').textContent()).toBe(`Resent ${id} as attempt 3.`);
    // The app got the retry and the resend (its dedupe answers the repeat without a second handler run).
    await vi.waitFor(() => expect(app.handled).toContain(`webhook.test ${id} 2`));
    await page.close();
  });

  it('refuses another origin and a foreign Host, and answers only on 127.0.0.1', async () => {
    const other = await fetch(`${inspectorUrl}api/trigger`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: '{"type":"webhook.test"}',
    });
    expect([other.status, (await other.json()).error.code]).toEqual([403, 'origin_not_allowed']);
    const plain = await fetch(`${inspectorUrl}api/trigger`, {
      method: 'POST',
      body: '{"type":"webhook.test"}',
    });
    expect(plain.status).toBe(415);
    const rebound = await new Promise<number>((resolve, reject) => {
      const url = new URL(inspectorUrl);
      request(
        { host: url.hostname, port: url.port, path: '/api/events', headers: { host: 'evil.example' } },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(rebound).toBe(403);
  });
});
