import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReceiver, createTestDelivery, MemoryStore, type ReceiverOptions } from '@sms-webhooks/core';
import type { AdapterReceiver } from '@sms-webhooks/core/adapter';
import { createNodeHandler, refuseEntry, writeNodeResponse } from '@sms-webhooks/core/adapter';
import type { Instrumentation } from '@sms-webhooks/core/instrumentation';
import { describe, expect, it } from 'vitest';
import { brokenStore, captureLogger, secret } from './helpers.js';

/** A fake of the seam that writes down every call, in order, as short strings. */
function recorder() {
  const calls: string[] = [];
  const scope = new AsyncLocalStorage<string>();
  const instrumentation: Instrumentation = {
    startDelivery(headers, receiver) {
      calls.push(`start ${receiver.store} ${receiver.respond} ${typeof headers}`);
      return {
        verified: (event, attempt) => calls.push(`verified ${event.type} attempt=${attempt}`),
        store(operation, call) {
          const result = call();
          if (result instanceof Promise) {
            return result.then(
              (value) => {
                calls.push(`store ${operation} ${String(value)}`);
                return value;
              },
              (error: Error) => {
                calls.push(`store ${operation} threw ${error.message}`);
                throw error;
              },
            ) as typeof result;
          }
          calls.push(`store ${operation} ${String(result)}`);
          return result;
        },
        runHandler(handler, call) {
          calls.push(`handler ${handler.name || 'anonymous'}`);
          // Runs the handler inside a scope of ours: the handler sees it, as it would see a span.
          return scope.run(`inside ${handler.name}`, call);
        },
        answered: (response, pending) => calls.push(`answered ${response.status} pending=${pending}`),
        threw: (error) => calls.push(`threw ${String(error)}`),
        finished: (error) => calls.push(`finished ${error ? error.code : 'ok'}`),
      };
    },
    refused: (code, status) => calls.push(`refused ${code} ${status}`),
  };
  return { calls, scope, instrumentation };
}

function receiverWith(instrumentation: Instrumentation, options: Partial<ReceiverOptions> = {}) {
  return createReceiver({ secret, logger: captureLogger(), instrumentation, ...options });
}

async function deliver(
  receiver: ReturnType<typeof createReceiver>,
  type: Parameters<typeof createTestDelivery>[0] = 'message.delivered',
  extra: Partial<Parameters<typeof createTestDelivery>[1]> = {},
) {
  const d = createTestDelivery(type, { secret, attempt: 2, ...extra });
  return receiver.handle({ rawBody: d.body, headers: d.headers });
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('the instrumentation option', () => {
  it('follows an accepted event: verified, claim, answer (pending), handler, complete, finished', async () => {
    const { calls, scope, instrumentation } = recorder();
    const receiver = receiverWith(instrumentation);
    let seen: string | undefined;
    receiver.on('message.delivered', async function recordDelivery() {
      seen = scope.getStore();
    });
    expect((await deliver(receiver)).status).toBe(200);
    await receiver.drain();
    expect(calls).toEqual([
      'start MemoryStore immediately object',
      'verified message.delivered attempt=2',
      'store claim claimed',
      'answered 200 pending=true',
      'handler recordDelivery',
      'store complete true',
      'finished ok',
    ]);
    expect(seen).toBe('inside recordDelivery');
  });

  it("with 'after-handlers', a failing handler: release and finished before the 500 answer", async () => {
    const { calls, instrumentation } = recorder();
    const receiver = receiverWith(instrumentation, { respond: 'after-handlers' });
    receiver.on('message.delivered', () => {
      throw new Error('boom');
    });
    receiver.onError(() => {});
    expect((await deliver(receiver)).status).toBe(500);
    expect(calls).toEqual([
      'start MemoryStore after-handlers object',
      'verified message.delivered attempt=2',
      'store claim claimed',
      'handler anonymous',
      'store release true',
      'finished handler_failed',
      'answered 500 pending=false',
    ]);
  });

  it('runs every handler of an event through runHandler', async () => {
    const { calls, instrumentation } = recorder();
    const receiver = receiverWith(instrumentation, { respond: 'after-handlers' });
    receiver.on('message.delivered', async function first() {});
    receiver.on('message.delivered', async function second() {});
    receiver.onAny(async function everything() {});
    await deliver(receiver);
    expect(calls.filter((c) => c.startsWith('handler'))).toEqual([
      'handler first',
      'handler second',
      'handler everything',
    ]);
  });

  it('a refused delivery: no verified, no store, an answer with its status', async () => {
    const { calls, instrumentation } = recorder();
    const receiver = receiverWith(instrumentation);
    receiver.on('message.delivered', () => {});
    const d = createTestDelivery('message.delivered', { secret: 'whsec_another_secret_000000000000' });
    const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect(res.status).toBe(400);
    expect(calls).toEqual(['start MemoryStore immediately object', 'answered 400 pending=false']);
  });

  it('ignored, duplicate and in-flight deliveries end at their answer', async () => {
    const { calls, instrumentation } = recorder();
    const store = new MemoryStore();
    const receiver = receiverWith(instrumentation, { store });
    receiver.on('message.delivered', () => {});
    await deliver(receiver, 'message.failed');
    expect(calls.splice(0)).toEqual([
      'start MemoryStore immediately object',
      'verified message.failed attempt=2',
      'answered 200 pending=false',
    ]);

    const d = createTestDelivery('message.delivered', { secret });
    await receiver.handle({ rawBody: d.body, headers: d.headers });
    await receiver.drain();
    calls.length = 0;
    await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect(calls.splice(0)).toEqual([
      'start MemoryStore immediately object',
      'verified message.delivered attempt=1',
      'store claim completed',
      'answered 200 pending=false',
    ]);

    const held = createTestDelivery('message.delivered', { secret });
    store.claim(held.event.id, 'someone-else', 60_000);
    expect((await receiver.handle({ rawBody: held.body, headers: held.headers })).status).toBe(409);
    expect(calls).toContain('store claim in-flight');
    expect(calls.at(-1)).toBe('answered 409 pending=false');
  });

  it('a store that is down: the claim rejects through store(), then 503', async () => {
    const { calls, instrumentation } = recorder();
    const receiver = receiverWith(instrumentation, { store: brokenStore('down') });
    receiver.on('message.delivered', () => {});
    expect((await deliver(receiver)).status).toBe(503);
    expect(calls.slice(2)).toEqual(['store claim threw down', 'answered 503 pending=false']);
  });

  it('a dispatched event: the dispatch goes through store(), no finished', async () => {
    const { calls, instrumentation } = recorder();
    const receiver = receiverWith(instrumentation, { dispatch: async () => 'queued' });
    receiver.on('message.delivered', () => {});
    await deliver(receiver);
    await settle();
    expect(calls.slice(2)).toEqual([
      'store claim claimed',
      'store dispatch queued',
      'answered 200 pending=false',
    ]);
  });

  it('a refusal an adapter answers before handle reaches refused()', () => {
    const { calls, instrumentation } = recorder();
    const receiver = receiverWith(instrumentation);
    expect(refuseEntry(receiver as AdapterReceiver, 'method', 'hint').status).toBe(405);
    expect(calls).toEqual(['refused method_not_allowed 405']);
  });

  it('a wrapped receiver (its methods copied onto another object) still counts the refusal', () => {
    const { calls, instrumentation } = recorder();
    const receiver = receiverWith(instrumentation);
    const refused: string[] = [];
    receiver.onRefused((r) => refused.push(r.code));
    // What a user's wrapper or a second copy of core hands an adapter: not an instance of core's class.
    const wrapped = { ...receiver };
    expect(refuseEntry(wrapped as AdapterReceiver, 'too-large', 'hint').status).toBe(413);
    expect(calls).toEqual(['refused payload_too_large 413']);
    expect(refused).toEqual(['payload_too_large']);
  });

  it('a wrapped receiver behind the Node entry still counts its 405 (no instanceof in the seam)', async () => {
    const { calls, instrumentation } = recorder();
    const wrapped = { ...receiverWith(instrumentation) };
    const handle = createNodeHandler(wrapped, { name: 'test', howToFix: 'Mount the route first.' });
    const server = createServer((req, res) => {
      void handle(req, { write: (r) => writeNodeResponse(res, r), takeOver: () => res });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/`);
      expect(res.status).toBe(405);
    } finally {
      server.close();
    }
    expect(calls).toEqual(['refused method_not_allowed 405']);
  });

  it('refuses an instrumentation without startDelivery at start-up, saying what to pass', () => {
    expect(() => createReceiver({ secret, instrumentation: {} as unknown as Instrumentation })).toThrow(
      /`instrumentation` must have a startDelivery\(\) method.*@sms-webhooks\/otel/,
    );
  });
});
