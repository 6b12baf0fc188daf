import {
  createReceiver,
  createTestDelivery,
  type DedupeStore,
  type ReceiverResponse,
  verifyWebhook,
} from '@sms-webhooks/core';
import { captureLogger } from '@sms-webhooks/test-helpers';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { expectedSignature } from './helpers/arbitraries.js';

const SECRET = 'whsec_R3l1ab1l1tyN0tInAnyL0g_5f2c9a';
const OLD_SECRET = 'whsec_Rotat3dAwayButSt1llC0nfigured_77';
const SECRETS = [SECRET, OLD_SECRET];
const now = () => Math.floor(Date.now() / 1000);

/** Every text the library produced during one scenario: responses, log lines, errors. */
const written: string[] = [];
/** Every full signature the receiver would compute for what it was sent. */
const signatures: string[] = [];

function track(res: ReceiverResponse): ReceiverResponse {
  written.push(res.body, JSON.stringify(res.headers));
  return res;
}

function trackThrown(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    written.push(error instanceof Error ? `${error.name} ${error.message} ${error.stack}` : String(error));
    return;
  }
  throw new Error('expected a throw');
}

/** Signed with the real secret but otherwise as a caller sends it; remembers the signatures it implies. */
function delivery(options: { t?: number; body?: (b: string) => string | Buffer; attempt?: number } = {}) {
  const d = createTestDelivery('message.delivered', { secret: SECRET, timestamp: options.t });
  const body = options.body ? options.body(d.body) : d.body;
  const t = /t=(\d+)/.exec(d.headers['x-service-signature']!)![1]!;
  for (const s of SECRETS) signatures.push(expectedSignature(s, t, body), expectedSignature(s, t, d.body));
  return { ...d, body, t };
}

function failingStore(message: string): DedupeStore {
  const fail = () => Promise.reject(new Error(message));
  return { localKeys: false, claim: fail, complete: fail, release: fail };
}

const consoleSpies: ReturnType<typeof vi.spyOn>[] = [];
beforeEach(() => {
  written.length = 0;
  signatures.length = 0;
  for (const m of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    consoleSpies.push(vi.spyOn(console, m).mockImplementation((...args) => written.push(args.join(' '))));
  }
});
afterEach(() => {
  for (const spy of consoleSpies.splice(0)) spy.mockRestore();
});

function expectNothingLeaked(logger: ReturnType<typeof captureLogger>): void {
  const all = [...written, logger.text()];
  expect(all.join('').length).toBeGreaterThan(0);
  for (const text of all) {
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    // Secrets without their prefix too: a log that trims `whsec_` still leaks.
    for (const secret of SECRETS) expect(text).not.toContain(secret.slice('whsec_'.length));
    for (const sig of signatures) expect(text.toLowerCase()).not.toContain(sig);
  }
}

describe('no secret or expected signature in any log, error or response', () => {
  it('every refusal code (missing, malformed, stale, future, mismatch, payload, header, too large)', async () => {
    const logger = captureLogger();
    const receiver = createReceiver({ secret: SECRETS, logger, maxBodyBytes: 4096 });
    receiver.on('message.delivered', () => {});
    const codes: string[] = [];
    const send = async (body: string | Buffer, headers: Record<string, string>) => {
      const res = track(await receiver.handle({ rawBody: body, headers }));
      codes.push(JSON.parse(res.body).error.code);
    };

    const ok = delivery();
    await send(ok.body, { ...ok.headers, 'x-service-signature': '' });
    await send(ok.body, { ...ok.headers, 'x-service-signature': `t=${ok.t},v1=zz` });
    const stale = delivery({ t: now() - 3600 });
    await send(stale.body, stale.headers);
    const future = delivery({ t: now() + 3600 });
    await send(future.body, future.headers);
    const tampered = delivery({ body: (b) => b.replace('delivered', 'failed') });
    await send(tampered.body, tampered.headers);
    const truncated = delivery({ body: (b) => b.slice(0, -1) });
    await send(truncated.body, truncated.headers);
    // Correctly signed but not an event: payload_invalid comes after the signature check.
    const notJson = delivery({ body: () => 'not json' });
    await send(notJson.body, {
      'x-service-signature': `t=${notJson.t},v1=${expectedSignature(SECRET, notJson.t, 'not json')}`,
    });
    const mismatch = delivery();
    await send(mismatch.body, { ...mismatch.headers, 'x-service-event-id': 'evt_other' });
    await send(Buffer.alloc(5000, 'a'), ok.headers);

    expect(codes).toEqual([
      'signature_missing',
      'signature_malformed',
      'timestamp_out_of_tolerance',
      'timestamp_out_of_tolerance',
      'signature_mismatch',
      'signature_mismatch',
      'payload_invalid',
      'header_mismatch',
      'payload_too_large',
    ]);
    expectNothingLeaked(logger);
  });

  it('verifyWebhook errors, including a parsed body passed by mistake', () => {
    const logger = captureLogger();
    const stale = delivery({ t: now() - 3600 });
    trackThrown(() => verifyWebhook(stale.body, stale.headers, { secret: SECRETS }));
    const tampered = delivery({ body: (b) => `${b} ` });
    trackThrown(() => verifyWebhook(tampered.body, tampered.headers, { secret: SECRETS }));
    trackThrown(() =>
      verifyWebhook(JSON.parse(String(tampered.body)), tampered.headers, { secret: SECRETS }),
    );
    expectNothingLeaked(logger);
  });

  it('handler failures in both modes, a failing onError hook, store outages and a drain time-out', async () => {
    const logger = captureLogger();
    // The store's error text is the driver's; it must be passed on without anything of ours added.
    const after = createReceiver({ secret: SECRETS, logger, respond: 'after-handlers' });
    after.on('message.delivered', () => {
      throw new Error('database down');
    });
    const d1 = delivery();
    expect(track(await after.handle({ rawBody: d1.body, headers: d1.headers })).status).toBe(500);

    const immediate = createReceiver({ secret: SECRETS, logger });
    immediate.on('message.delivered', async () => {
      throw new Error('downstream refused');
    });
    immediate.onError(() => {
      throw new Error('alerting is down too');
    });
    const d2 = delivery();
    expect(track(await immediate.handle({ rawBody: d2.body, headers: d2.headers })).status).toBe(200);
    await immediate.drain();

    for (const onStoreError of ['reject', 'process'] as const) {
      const r = createReceiver({
        secret: SECRETS,
        logger,
        onStoreError,
        store: failingStore('ECONNREFUSED'),
      });
      r.on('message.delivered', () => {});
      const d = delivery();
      track(await r.handle({ rawBody: d.body, headers: d.headers }));
      await r.drain();
    }

    const slow = createReceiver({ secret: SECRETS, logger });
    slow.on('message.delivered', () => new Promise((resolve) => setTimeout(resolve, 300)));
    const d3 = delivery();
    track(await slow.handle({ rawBody: d3.body, headers: d3.headers }));
    expect((await slow.drain(10)).unfinished).toEqual([d3.event.id]);
    await slow.drain();

    // A parsed body (another body parser ran first) is answered with a hint, not with what was sent.
    track(await after.handle({ rawBody: JSON.parse(String(d1.body)), headers: d1.headers }));

    expect(logger.text()).toContain('database down');
    expect(logger.text()).toContain('alerting is down too');
    expect(logger.text()).toContain(d3.event.id);
    expectNothingLeaked(logger);
  });

  it('option errors do not echo the secret they refuse', () => {
    const logger = captureLogger();
    trackThrown(() => createReceiver({ secret: ` ${SECRET}\n`, logger }));
    trackThrown(() => createReceiver({ secret: [SECRET, `${OLD_SECRET} `], logger }));
    trackThrown(() => createReceiver({ secret: SECRET, logger, secrets: SECRET } as never));
    expectNothingLeaked(logger);
  });
});
