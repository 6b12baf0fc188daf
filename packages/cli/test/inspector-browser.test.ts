import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AttemptReport } from '@sms-webhooks/emulator';
import { type BrowserContext, chromium } from 'playwright-core';
import { startInspector } from '../src/inspector/inspector-server.js';
import { InspectorState } from '../src/inspector/inspector-state.js';
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
    // The list says what its status alone would hide: the app refused it once before accepting it.
    expect(await row.locator('.mark').textContent()).toBe('accepted after 1 refusal');
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

/** One attempt at `attempt` of `eventId`, answered `status` with `body`. */
function attempt(eventId: string, n: number, status: number, body: string, retrying = false): AttemptReport {
  return {
    webhookId: 'wh_page',
    url: 'http://127.0.0.1:3000/webhooks/sms',
    eventId,
    eventType: 'message.delivered',
    attempt: n,
    statusCode: status,
    error: null,
    delivered: status < 300,
    responseBody: body,
    requestHeaders: {},
    requestBody: JSON.stringify({ id: eventId }),
    nextAttemptAt: retrying ? Date.now() + 60_000 : null,
    startedAt: Date.now(),
    durationMs: 3,
  };
}

// The page's own reading of a session, from a state filled here: which events were retried or refused
// before they were accepted, which one it opens on, and a hint written for a page, not a terminal.
describe('the inspector page over a known session', () => {
  const MISMATCH = '{"error":{"code":"signature_mismatch","message":"no signature matches"}}';
  const OK = '{"received":true}';
  let state: InspectorState;
  let inspector: Awaited<ReturnType<typeof startInspector>>;

  beforeAll(async () => {
    state = new InspectorState(1);
    // Oldest first: one accepted at once, one refused then accepted, one refused twice and still retrying.
    state.record(attempt('evt_first_try', 1, 200, OK));
    state.record(attempt('evt_recovered', 1, 400, MISMATCH, true));
    state.record(attempt('evt_recovered', 2, 200, OK));
    state.record(attempt('evt_still_failing', 1, 500, '{"error":"down"}', true));
    state.record(attempt('evt_still_failing', 2, 400, MISMATCH, true));
    state.record(attempt('evt_newest', 1, 200, OK));
    inspector = await startInspector({
      state,
      apiBase: 'http://127.0.0.1:9/',
      events: ['message.delivered'],
      scenario: () => ({ path: '/', body: {} }),
      port: 0,
    });
  });
  afterAll(() => inspector?.close());

  it('opens on the newest event, and a new event keeps the one the reader chose', async () => {
    const page = await browser.newPage();
    await page.goto(inspector.url);
    await page.locator('#status.live').waitFor();
    const detail = page.locator('#detail article.event');
    await detail.waitFor();
    expect(await detail.getAttribute('data-event-id')).toBe('evt_newest');
    expect(await page.locator('#events li.row').first().getAttribute('aria-selected')).toBe('true');
    await page.locator('#events li.row[data-event-id="evt_recovered"]').click();
    state.record(attempt('evt_later', 1, 200, OK));
    await page.locator('#events li.row[data-event-id="evt_later"]').waitFor();
    expect(await detail.getAttribute('data-event-id')).toBe('evt_recovered');
    await page.close();
  });

  it('marks in the list the events retried and those refused before they were accepted', async () => {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(inspector.url);
    await page.locator('#status.live').waitFor();
    const row = (id: string) => page.locator(`#events li.row[data-event-id="${id}"]`);
    await row('evt_first_try').waitFor();
    expect(await row('evt_first_try').locator('.mark').count()).toBe(0);
    expect(await row('evt_newest').locator('.mark').count()).toBe(0);
    const recovered = row('evt_recovered').locator('.mark');
    expect(await recovered.getAttribute('data-mark')).toBe('recovered');
    expect(await recovered.textContent()).toBe('accepted after 1 refusal');
    const failing = row('evt_still_failing').locator('.mark');
    expect(await failing.getAttribute('data-mark')).toBe('retried');
    expect(await failing.textContent()).toBe('2 attempts');
    // The marks fit the narrow list, beside the event's id.
    for (const mark of [recovered, failing]) {
      const box = (await mark.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    // A retry that is accepted turns "retried" into "accepted after 2 refusals", live.
    state.record(attempt('evt_still_failing', 3, 200, OK));
    await vi.waitFor(async () => expect(await failing.textContent()).toBe('accepted after 2 refusals'));
    await page.close();
  });

  it('says, beside a refused signature, where the secret to use was printed', async () => {
    const page = await browser.newPage();
    await page.goto(inspector.url);
    await page.locator('#events li.row[data-event-id="evt_recovered"]').click();
    const hint = page.locator('#detail tr.more .hint').first();
    await hint.waitFor();
    const text = (await hint.textContent())!;
    expect(text).not.toMatch(/\babove\b/);
    expect(text).toBe(
      '↳ is the app using the secret `sms-webhooks listen` printed when it started (its SMS_WEBHOOK_SECRET)?',
    );
    await page.close();
  });
});
