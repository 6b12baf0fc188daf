import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium } from 'playwright-core';
import { listenInProcess } from './in-process-listen.js';
import { type App, startApp } from './receiving-app.js';

// `listen --ui`, the inspector page, in a real headless Chromium (Debian's, installed by .ci/run): a compact
// list beside the selected delivery, live attempts, resend, filters, and a layout from 360 px up. The
// tests run in order and share one listen: the first one's event is the one the later ones look at.

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

/** Triggers `type` through the inspector's own API, as its button does. */
async function trigger(type: string): Promise<string> {
  const res = await fetch(`${inspectorUrl}api/trigger`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { events: { id: string }[] }).events[0]!.id;
}

/** The width and height a PNG's header gives. */
function pngSize(file: string): [number, number] {
  const bytes = readFileSync(file);
  expect(bytes.subarray(1, 4).toString()).toBe('PNG');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

describe('listen --ui in Chromium', () => {
  let id: string;

  it('lists a triggered event, shows its failed attempt and the retry live, keeps opened details open, and marks a resend duplicate', async () => {
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failures.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(inspectorUrl);
    await page.locator('#status.live').waitFor();
    await page.selectOption('#trigger-type', 'webhook.test');
    await page.click('#trigger');

    const row = page.locator('#events li.row').filter({ hasText: 'webhook.test' });
    await row.waitFor();
    // The first event is selected by itself; its detail is beside the list.
    const detail = page.locator('#detail article.event');
    await detail.waitFor();
    // The style sheet loaded (the page's CSP allows nothing inline).
    expect(await page.locator('header').evaluate((h) => getComputedStyle(h).position)).toBe('sticky');
    // Attempt 1: the app's 500, with the retry it scheduled and the rest of the schedule.
    const first = detail.locator('tr[data-attempt="1"]');
    await first.waitFor();
    expect(await first.getAttribute('data-status')).toBe('500');
    expect(await first.locator('.next').textContent()).toMatch(/^next retry /);
    expect(await row.getAttribute('data-state')).toBe('retrying');
    expect(await detail.locator('.schedule').textContent()).toContain(
      'then +30 s, +3 min, +12 min, +1.2 h (6 attempts in all)',
    );
    // The reader opens attempt 1's headers and response before the retry arrives ...
    await detail.locator('details[data-name="attempt-1"] summary').click();
    expect(await detail.locator('pre.response-body').first().textContent()).toBe(
      '{\n  "error": "down for a moment"\n}',
    );
    // ... attempt 2 arrives by itself (the retry), answered 200, and what was open stays open.
    const second = detail.locator('tr[data-attempt="2"]');
    await second.waitFor();
    expect(await second.getAttribute('data-status')).toBe('200');
    expect(await detail.locator('details[data-name="attempt-1"]').getAttribute('open')).toBe('');
    expect(await detail.locator('details[data-name="attempt-2"]').getAttribute('open')).toBeNull();
    id = (await detail.getAttribute('data-event-id'))!;
    expect(id).toMatch(/^evt_/);
    expect(await row.getAttribute('data-event-id')).toBe(id);
    expect(await row.getAttribute('data-state')).toBe('delivered');
    // The body, pretty-printed.
    expect(await detail.locator('pre.body').textContent()).toMatch(new RegExp(`^\\{\\n  "id": "${id}",\\n`));
    const headers = await detail.locator('pre.request-headers').first().textContent();
    expect(headers).toMatch(/^x-service-signature: t=\d+,v1=[0-9a-f]{64}$/m);
    expect(headers).toContain(`x-service-event-id: ${id}`);
    expect(headers).not.toContain(SECRET);

    // A resend of an event the app handled already: its receiver answers duplicate, and the page says so.
    await detail.locator('button.resend').click();
    const third = detail.locator('tr[data-attempt="3"][data-status="200"]');
    await third.waitFor();
    expect(await third.getAttribute('data-outcome')).toBe('duplicate');
    expect(await third.locator('.answer').textContent()).toBe('→ 200 duplicate');
    expect(await row.getAttribute('data-state')).toBe('duplicate');
    expect(await page.locator('#message').textContent()).toBe(`Resent ${id} as attempt 3.`);
    // The app got the retry and the resend (its dedupe answers the repeat without a second handler run).
    await vi.waitFor(() => expect(app.handled).toContain(`webhook.test ${id} 2`));
    expect(app.handled.filter((line) => line.includes(id))).toHaveLength(1);
    // Nothing the page asked for was missing: the favicon included.
    expect(failures).toEqual([]);
    const icon = await fetch(`${inspectorUrl}favicon.ico`);
    expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    await page.close();
  });

  it('filters by type and status, searches by id, and says when new events arrive above a scrolled list', async () => {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1000, height: 520 });
    await page.goto(inspectorUrl);
    await page.locator('#status.live').waitFor();
    const sent: string[] = [];
    for (let i = 0; i < 12; i++) sent.push(await trigger('message.sent'));
    const rows = page.locator('#events li.row');
    await vi.waitFor(async () => expect(await rows.count()).toBe(13), { timeout: 20_000 });
    // The first event stays selected while others arrive.
    expect(await page.locator('#detail article.event').getAttribute('data-event-id')).toBe(id);

    await page.selectOption('#filter-type', 'message.sent');
    expect(await page.locator('#events li.row:visible').count()).toBe(12);
    expect(await page.locator('#count').textContent()).toBe('12 of 13 shown');
    await page.selectOption('#filter-type', '');
    await page.selectOption('#filter-status', 'duplicate');
    expect(await page.locator('#events li.row:visible').getAttribute('data-event-id')).toBe(id);
    await page.selectOption('#filter-status', '');
    await page.fill('#search', sent[4]!.slice(-10));
    expect(await page.locator('#events li.row:visible').count()).toBe(1);
    await page.locator('#events li.row:visible').click();
    expect(await page.locator('#detail article.event').getAttribute('data-event-id')).toBe(sent[4]);
    await page.fill('#search', '');

    // Scrolled down the list, a new event does not move it: a notice says so, and takes you up.
    await page.locator('#list-pane').evaluate((pane) => pane.scrollTo({ top: pane.scrollHeight }));
    const before = await page.locator('#list-pane').evaluate((pane) => pane.scrollTop);
    expect(before).toBeGreaterThan(4);
    await trigger('webhook.test');
    const notice = page.locator('#new-events');
    await notice.waitFor({ state: 'visible' });
    expect(await notice.textContent()).toBe('↑ 1 new event');
    await notice.click();
    await notice.waitFor({ state: 'hidden' });
    expect(await page.locator('#list-pane').evaluate((pane) => pane.scrollTop)).toBe(0);
    await page.close();
  });

  it.each([
    [1400, 900],
    [390, 844],
    [360, 740],
  ])('lays out the list and the detail at %i px wide, with nothing cut off', async (width, height) => {
    const page = await browser.newPage();
    await page.setViewportSize({ width, height });
    await page.goto(inspectorUrl);
    await page.locator('#status.live').waitFor();
    await page.locator(`#events li.row[data-event-id="${id}"]`).click();
    await page.locator('#detail tr[data-attempt="3"]').waitFor();
    await page.locator('#detail details[data-name="attempt-1"] summary').click();
    // No sideways scrolling, and the status and Resend are inside the window.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    for (const selector of [
      '#detail h2 .badge',
      '#detail button.resend',
      '#trigger',
      '#events li.row .badge',
    ]) {
      const box = (await page.locator(selector).first().boundingBox())!;
      expect(box.x, selector).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, selector).toBeLessThanOrEqual(width);
    }
    const list = (await page.locator('#list-pane').boundingBox())!;
    const detail = (await page.locator('#detail').boundingBox())!;
    if (width >= 1000)
      expect(detail.x).toBeGreaterThanOrEqual(list.x + list.width - 1); // side by side
    else expect(detail.y).toBeGreaterThanOrEqual(list.y + list.height - 1); // the list above the detail
    // The README's pictures: written where INSPECTOR_SCREENSHOTS says (packages/cli/docs to refresh them).
    const dir = (width !== 360 && process.env.INSPECTOR_SCREENSHOTS) || profile;
    const file = join(dir, `inspector-${width}.png`);
    await page.screenshot({ path: file });
    expect(pngSize(file)).toEqual([width, height]);
    await page.close();
  });

  it('has its screenshots at 1400 and 390 px checked in and shown in the README', () => {
    const docs = fileURLToPath(new URL('../docs/', import.meta.url));
    const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    for (const width of [1400, 390]) {
      expect(pngSize(join(docs, `inspector-${width}.png`))[0]).toBe(width);
      expect(readme).toContain(`](docs/inspector-${width}.png)`);
    }
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
