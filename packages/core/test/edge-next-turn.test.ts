import { createTestDelivery } from '@sms-webhooks/core';

// Next.js's edge sandbox defines setImmediate as a stub that throws when called ("A Node.js API is used
// (setImmediate) which is not supported in the Edge Runtime") and sets the EdgeRuntime global: the receiver
// must start its handlers some other way there (examples/nextjs, test/runtimes/nextjs.test.ts).

const secret = 'whsec_edge_next_turn_0123456789abcd';

describe("in Next.js's edge sandbox (a throwing setImmediate, EdgeRuntime set)", () => {
  const original = globalThis.setImmediate;
  beforeEach(() => {
    vi.resetModules();
    (globalThis as { EdgeRuntime?: string }).EdgeRuntime = 'edge-runtime';
    globalThis.setImmediate = (() => {
      throw new Error('A Node.js API is used (setImmediate) which is not supported in the Edge Runtime.');
    }) as unknown as typeof setImmediate;
  });
  afterEach(() => {
    globalThis.setImmediate = original;
    delete (globalThis as { EdgeRuntime?: string }).EdgeRuntime;
  });

  it('accepts a delivery and runs its handler after the answer', async () => {
    const { createReceiver } = await import('@sms-webhooks/core');
    const receiver = createReceiver({ secret, logger: { warn() {}, error() {} } });
    const handled: string[] = [];
    receiver.on('message.delivered', (event) => {
      handled.push(event.id);
    });
    const d = createTestDelivery('message.delivered', { secret });
    const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect([res.status, res.body]).toEqual([200, '{"received":true}']);
    await receiver.drain();
    expect(handled).toEqual([d.event.id]);
  });
});

describe('a throw past the claim (a bug, not bad input)', () => {
  it('gives the claim back, so the retry runs the event instead of meeting 409 for the whole lease', async () => {
    const { createReceiver, MemoryStore } = await import('@sms-webhooks/core');
    let throwing = true;
    // A logger that throws once: the warning about an unreadable attempt header is written past the claim.
    const logger = {
      warn() {
        if (throwing) {
          throwing = false;
          throw new Error('log sink down');
        }
      },
      error() {},
    };
    const receiver = createReceiver({ secret, logger, store: new MemoryStore(), respond: 'after-handlers' });
    const handled: string[] = [];
    receiver.on('message.delivered', (event) => {
      handled.push(event.id);
    });
    const d = createTestDelivery('message.delivered', { secret });
    await expect(
      receiver.handle({ rawBody: d.body, headers: { ...d.headers, 'x-service-delivery-attempt': '9' } }),
    ).rejects.toThrow('log sink down');
    await new Promise((r) => setTimeout(r, 0));
    const retry = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect([retry.status, retry.body]).toEqual([200, '{"received":true}']);
    expect(handled).toEqual([d.event.id]);
  });
});
