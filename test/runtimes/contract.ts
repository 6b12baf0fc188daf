import { createTestDelivery } from '@sms-webhooks/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

export const SECRET = 'whsec_runtimes0123456789abcdef012345';
export const MAX_BODY_BYTES = 4096;

/** A running app (test/runtimes/fixtures/app.ts) on some runtime, reached over real HTTP. */
export interface RunningApp {
  fetch(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

interface Handled {
  handled: string[];
  keptAlive: number;
}

async function handled(app: RunningApp): Promise<Handled> {
  return (await app.fetch('/handled')).json() as Promise<Handled>;
}

/** Polls until the handler (which ends 20 ms after the response) has recorded `id`, or 10 s pass. */
async function whenHandled(app: RunningApp, id: string): Promise<Handled> {
  for (let i = 0; i < 200; i++) {
    const state = await handled(app);
    if (state.handled.includes(id)) return state;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return handled(app);
}

function post(app: RunningApp, body: string, headers: Record<string, string>) {
  return app.fetch('/webhooks', { method: 'POST', body, headers });
}

/**
 * The web handler's contract on a real runtime. `web`: the app is core's Web build, where the platform's
 * waitUntil is handed each handler run (Workers, Vercel Edge); otherwise the Node build, in a process
 * that simply outlives the response (Bun, Deno).
 */
export function runtimeContract(name: string, start: () => Promise<RunningApp>, web: boolean): void {
  const keptAlive = web;
  describe(name, () => {
    let app: RunningApp;
    beforeAll(async () => {
      app = await start();
    }, 60_000);
    afterAll(() => app?.stop());

    it('answers a signed delivery 200 and runs its handler after the response', async () => {
      const d = createTestDelivery('message.delivered', { secret: SECRET });
      const res = await post(app, d.body, d.headers);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ received: true });
      const state = await whenHandled(app, d.event.id);
      expect(state.handled).toContain(d.event.id);
      // Workers: the run was handed to ctx.waitUntil, which kept the isolate alive until it ended.
      expect(state.keptAlive).toBe(keptAlive ? state.handled.length : 0);
    });

    it('answers a repeated delivery as a duplicate and runs its handler once', async () => {
      const d = createTestDelivery('message.delivered', { secret: SECRET });
      expect((await post(app, d.body, d.headers)).status).toBe(200);
      await whenHandled(app, d.event.id);
      const again = await post(app, d.body, d.headers);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ received: true, duplicate: true });
      const state = await handled(app);
      expect(state.handled.filter((id) => id === d.event.id)).toHaveLength(1);
    });

    it('refuses a forged delivery with 400 signature_mismatch', async () => {
      const d = createTestDelivery('message.delivered', { secret: 'whsec_forger0123456789abcdef' });
      const res = await post(app, d.body, d.headers);
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBe('signature_mismatch');
    });

    it('refuses a stale delivery with 400 timestamp_out_of_tolerance', async () => {
      const timestamp = Math.floor(Date.now() / 1000) - 3600;
      const d = createTestDelivery('message.delivered', { secret: SECRET, timestamp });
      const res = await post(app, d.body, d.headers);
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBe('timestamp_out_of_tolerance');
    });

    it('refuses a body over maxBodyBytes with 413 payload_too_large', async () => {
      const d = createTestDelivery('message.delivered', {
        secret: SECRET,
        data: { metadata: { pad: 'x'.repeat(MAX_BODY_BYTES) } },
      });
      const res = await post(app, d.body, d.headers);
      expect(res.status).toBe(413);
      expect((await res.json()).error.code).toBe('payload_too_large');
    });

    it('answers GET with 405 and Allow: POST', async () => {
      const res = await app.fetch('/webhooks');
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect((await res.json()).error.code).toBe('method_not_allowed');
    });

    it(
      web
        ? 'refuses the synchronous verifyWebhook with a TypeError that names what works here'
        : 'has the synchronous verifyWebhook too',
      async () => {
        const result = await (await app.fetch('/verify-sync')).json();
        if (web) {
          expect(result).toMatchObject({ threw: true, name: 'TypeError' });
          expect(result.message).toMatch(
            /verifyWebhook is synchronous and needs node:crypto.*webhookHandler/,
          );
        } else {
          // It ran, and found no signature header.
          expect(result).toMatchObject({ threw: true, code: 'signature_missing' });
        }
      },
    );

    it('verifies multi-byte UTF-8 bodies byte for byte', async () => {
      const d = createTestDelivery('message.delivered', {
        secret: SECRET,
        data: { metadata: { note: 'héllo wörld ✓ 😀 café' } },
      });
      const res = await post(app, d.body, d.headers);
      expect(res.status).toBe(200);
      expect((await whenHandled(app, d.event.id)).handled).toContain(d.event.id);
    });
  });
}
