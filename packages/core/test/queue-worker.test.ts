import {
  createReceiver,
  createTestDelivery,
  type DedupeStore,
  type EventType,
  MemoryStore,
  type Receiver,
  type WebhookHandlerError,
} from '@sms-webhooks/core';
import {
  type ClaimPolicy,
  createQueueWorker,
  type DispatchedEvent,
  type QueuedJobData,
  type QueueTransport,
  type QueueWorkerOptions,
  type WebhookHandlers,
} from '@sms-webhooks/core/queue';
import { describe, expect, it } from 'vitest';
import { captureLogger, deferred, secret } from './helpers.js';

interface FakeJob {
  data: QueuedJobData;
  attempts: number;
}

/**
 * An in-memory queue engine around the worker core, as the engine packages are: `done` acks, `wait`
 * puts the job back without counting an attempt, `failed` retries up to `maxAttempts`, then gives up.
 */
function fakeEngine(
  source: Receiver | WebhookHandlers,
  options: QueueWorkerOptions<FakeJob> & { maxAttempts?: number; claims?: ClaimPolicy } = {},
  transport: Partial<QueueTransport<FakeJob>> = {},
) {
  const { maxAttempts = 2, claims = 'renew', ...workerOptions } = options;
  const worker = createQueueWorker<FakeJob>(source, workerOptions, {
    owner: 'fake-queue',
    claims,
    advice: 'raise the fake lease.',
    ordered: true,
    failedFor: (job) => `failed after ${job.attempts} attempt(s) and stays in the fake failed list`,
    ...transport,
  });
  const acked: FakeJob[] = [];
  const failed: FakeJob[] = [];
  const waited: string[] = [];
  async function process(job: FakeJob): Promise<'acked' | 'waits' | 'retry' | 'failed'> {
    const outcome = await worker.run(job);
    if (outcome.action === 'done') {
      acked.push(job);
      return 'acked';
    }
    if (outcome.action === 'wait') {
      waited.push(outcome.key);
      return 'waits';
    }
    job.attempts++;
    if (job.attempts < maxAttempts) return 'retry';
    failed.push(job);
    await worker.giveUp(job, outcome.error, outcome.claim);
    return 'failed';
  }
  return { worker, process, acked, failed, waited };
}

function job(d: DispatchedEvent): FakeJob {
  const data: QueuedJobData = { event: d.event, receivedAt: d.ctx.receivedAt.toISOString() };
  if (d.ctx.attempt !== undefined) data.attempt = d.ctx.attempt;
  if (d.claim !== undefined) data.claim = d.claim;
  if (d.order !== undefined) data.order = d.order;
  return { data, attempts: 0 };
}

/** A receiver whose dispatch keeps the jobs, as a queue would; `order` adds the object slots. */
function queued(store: DedupeStore = new MemoryStore(), order = false) {
  const jobs: FakeJob[] = [];
  const dispatch = Object.assign(async (d: DispatchedEvent) => void jobs.push(job(d)), {
    appliesOrder: true,
  });
  const logger = captureLogger();
  const receiver = createReceiver({ secret, store, dispatch, logger, ...(order ? { order: true } : {}) });
  // A receiver hands off only events it has handlers for.
  receiver.on(['message.sent', 'message.delivered'], () => {});
  const send = async (type: EventType = 'message.delivered', data?: object) => {
    const d = createTestDelivery(type, { secret, ...(data ? { data: data as never } : {}) });
    await receiver.handle({ rawBody: d.body, headers: d.headers });
    return jobs.at(-1)!;
  };
  return { receiver, store, send, logger };
}

/** A store whose calls are counted by name. */
function counted(store: DedupeStore) {
  const calls: string[] = [];
  for (const name of ['claim', 'renew', 'complete', 'release'] as const) {
    const call = store[name]!.bind(store) as (...args: unknown[]) => Promise<unknown>;
    (store as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      calls.push(name);
      return call(...args);
    };
  }
  return calls;
}

describe('createQueueWorker: the one worker core of the queue packages', () => {
  it('runs the handlers with the job context, then records the event done', async () => {
    const { receiver, store, send } = queued();
    const seen: unknown[] = [];
    receiver.on(
      'message.delivered',
      (event, ctx) => void seen.push([event.id, ctx.receivedAt instanceof Date]),
    );
    const j = await send();
    const engine = fakeEngine(receiver);
    expect(await engine.process(j)).toBe('acked');
    expect(seen).toEqual([[j.data.event.id, true]]);
    expect(await store.claim(j.data.event.id, 'probe', 1000)).toBe('completed');
  });

  it('renew: the claim is renewed at the start and kept; keep: it is left as the hand-off set it', async () => {
    for (const [claims, expected] of [
      ['renew', ['renew', 'complete']],
      ['keep', ['complete']],
    ] as const) {
      const { receiver, store, send } = queued();
      receiver.on('message.delivered', () => {});
      const j = await send();
      const calls = counted(store);
      await fakeEngine(receiver, { claims }).process(j);
      expect(calls, claims).toEqual(expected);
    }
  });

  it('renew: a claim that ran out is left alone, the job runs, and its completion is recorded afresh', async () => {
    const { receiver, store, send } = queued();
    receiver.on('message.delivered', () => {});
    const j = await send();
    await store.release(j.data.claim!.key, j.data.claim!.token);
    await store.claim(j.data.claim!.key, 'someone-else', 60_000);
    const runs: string[] = [];
    const engine = fakeEngine({ 'message.delivered': () => void runs.push('ran') }, { store });
    expect(await engine.process(j)).toBe('acked');
    expect(runs).toEqual(['ran']);
  });

  it('retake: a job whose claim ran out takes a fresh one; a copy finds it done, or in flight and waits', async () => {
    const { receiver, store, send } = queued();
    const j = await send();
    await store.release(j.data.claim!.key, j.data.claim!.token);
    const gate = deferred<void>();
    const runs: string[] = [];
    receiver.on('message.delivered', async () => {
      runs.push('ran');
      await gate.promise;
    });
    const engine = fakeEngine(receiver, { claims: 'retake' });
    const first = engine.process(j);
    await new Promise((r) => setTimeout(r, 10));
    expect(await engine.process({ ...j, attempts: 0 })).toBe('waits');
    expect(engine.waited).toEqual([j.data.claim!.key]);
    gate.resolve();
    expect(await first).toBe('acked');
    expect(await engine.process({ ...j, attempts: 0 })).toBe('acked');
    expect(runs).toEqual(['ran']);
  });

  it('a failed attempt keeps the claim for the retry; giving up frees it and reports once to onError', async () => {
    const { receiver, store, send } = queued();
    receiver.on('message.delivered', () => {
      throw new Error('downstream is down');
    });
    const j = await send();
    const reported: [unknown, FakeJob][] = [];
    const engine = fakeEngine(receiver, { onError: (error, job) => void reported.push([error, job]) });
    expect(await engine.process(j)).toBe('retry');
    expect(await store.claim(j.data.event.id, 'probe', 1000)).toBe('in-flight');
    expect(reported).toEqual([]);
    expect(await engine.process(j)).toBe('failed');
    expect(reported).toHaveLength(1);
    expect(reported[0]![0]).toMatchObject({ code: 'handler_failed', event: { id: j.data.event.id } });
    expect(reported[0]![1]).toBe(j);
    expect(await store.claim(j.data.event.id, 'probe', 1000)).toBe('claimed');
  });

  it("without onError: the receiver's hooks get a WebhookHandlerError; with a map, a logged line says where it stays", async () => {
    const { receiver, send } = queued();
    const hooked: WebhookHandlerError[] = [];
    receiver.onError((error) => void hooked.push(error));
    const j = await send();
    await fakeEngine(receiver, { maxAttempts: 1 }).worker.giveUp(j, new Error('stalled'));
    expect(hooked).toHaveLength(1);
    expect(hooked[0]).toMatchObject({
      code: 'handler_failed',
      errors: [expect.objectContaining({ message: 'stalled' })],
    });

    const logger = captureLogger();
    const engine = fakeEngine(
      { 'message.delivered': () => Promise.reject(new Error('boom')) },
      { logger, maxAttempts: 1 },
    );
    expect(await engine.process({ ...j, attempts: 0 })).toBe('failed');
    expect(logger.text()).toMatch(
      new RegExp(
        `fake-queue: message.delivered ${j.data.event.id} failed after 1 attempt\\(s\\) and stays in the fake failed list: .*boom`,
      ),
    );
  });

  it('an onError hook that throws is logged, never rethrown', async () => {
    const { send } = queued();
    const j = await send();
    const logger = captureLogger();
    const engine = fakeEngine({}, { logger, onError: () => Promise.reject(new Error('hook broke')) });
    await expect(engine.worker.giveUp(j, new Error('x'))).resolves.toBeUndefined();
    expect(logger.text()).toMatch(/fake-queue: an onError hook failed: .*hook broke/);
  });

  it('a handler map runs under handlerTimeoutMs: past it the attempt fails', async () => {
    const { send, store } = queued();
    const j = await send();
    const engine = fakeEngine(
      { 'message.delivered': () => new Promise(() => {}) },
      { store, handlerTimeoutMs: 20 },
    );
    const outcome = await engine.worker.run(j);
    expect(outcome).toMatchObject({ action: 'failed', error: { code: 'handler_failed' } });
  });

  it('jobs that carry claims, and a worker with no store: warned once, run all the same', async () => {
    const { send } = queued();
    const logger = captureLogger();
    const engine = fakeEngine({ 'message.delivered': () => {} }, { logger });
    expect(await engine.process(await send())).toBe('acked');
    expect(await engine.process(await send())).toBe('acked');
    expect(logger.text().match(/carry dedupe claims but this worker has no `store`/g)).toHaveLength(1);
  });

  it('refuses at start-up a receiver with order and a store that keeps no versions', () => {
    const { receiver } = queued(new MemoryStore(), true);
    const plain: DedupeStore = {
      localKeys: true,
      claim: async () => 'claimed',
      complete: async () => true,
      release: async () => true,
    };
    expect(() => fakeEngine(receiver, { store: plain })).toThrow(
      expect.objectContaining({ code: 'ERR_SMS_OPTIONS' }),
    );
  });
});

describe('createQueueWorker with order', () => {
  const status = (type: EventType, updatedAt: string) =>
    [type, { id: 'msg_1', updated_at: updatedAt }] as const;

  it('a job whose object another job holds comes back as wait; a stale one completes without running, told to onStale', async () => {
    const { receiver, send } = queued(new MemoryStore(), true);
    const gate = deferred<void>();
    const runs: string[] = [];
    receiver.on(['message.sent', 'message.delivered'], async (event) => {
      runs.push(event.type);
      if (event.type === 'message.sent') await gate.promise;
    });
    const older = await send('message.sent', { id: 'msg_1', updated_at: '2026-11-27T10:00:00.000Z' });
    const newer = await send(...status('message.delivered', '2026-11-27T10:00:05.000Z'));
    const stale: string[] = [];
    const engine = fakeEngine(receiver, { onStale: (event) => void stale.push(event.id) });
    const first = engine.process(older);
    await new Promise((r) => setTimeout(r, 10));
    expect(await engine.process(newer)).toBe('waits');
    gate.resolve();
    expect(await first).toBe('acked');
    expect(await engine.process(newer)).toBe('acked');
    expect(await engine.process({ ...older, attempts: 0 })).toBe('acked');
    expect(runs).toEqual(['message.sent', 'message.delivered']);
    expect(stale).toEqual([older.data.event.id]);
  });

  it('waitInPlace: the job asks again until the object is free; past its limit, or once stopped, the attempt fails', async () => {
    const { receiver, send } = queued(new MemoryStore(), true);
    const gate = deferred<void>();
    receiver.on(['message.sent', 'message.delivered'], async (event) => {
      if (event.type === 'message.sent') await gate.promise;
    });
    const older = await send('message.sent', { id: 'msg_1', updated_at: '2026-11-27T10:00:00.000Z' });
    const newer = await send(...status('message.delivered', '2026-11-27T10:00:05.000Z'));
    const waitInPlace = { limitMs: () => 60, limit: 'the fake limit' };
    const engine = fakeEngine(receiver, { orderWaitMs: 10, maxAttempts: 5 }, { waitInPlace });
    const first = engine.process(older);
    await new Promise((r) => setTimeout(r, 10));
    const outcome = await engine.worker.run(newer);
    expect(outcome).toMatchObject({
      action: 'failed',
      error: { message: expect.stringContaining('for the fake limit') },
    });
    const waiting = engine.worker.run(newer);
    engine.worker.stopWaiting();
    expect(await waiting).toMatchObject({
      error: { message: expect.stringContaining('until the worker closed') },
    });

    const again = fakeEngine(
      receiver,
      { orderWaitMs: 10 },
      { waitInPlace: { limitMs: () => 5_000, limit: 'x' } },
    );
    const late = again.process(newer);
    setTimeout(() => gate.resolve(), 30);
    expect(await first).toBe('acked');
    expect(await late).toBe('acked');
  });

  it("completeOrdered takes over an ordered job's completion (pg-boss: one transaction), with the record to make", async () => {
    const { receiver, store, send } = queued(new MemoryStore(), true);
    receiver.on('message.delivered', () => {});
    const j = await send(...status('message.delivered', '2026-11-27T10:00:05.000Z'));
    const steps: string[] = [];
    const engine = fakeEngine(
      receiver,
      {},
      {
        async completeOrdered(job, held, record) {
          steps.push(`${job.data.event.id} ${held.order.key}`);
          await held.complete();
          await record();
        },
      },
    );
    expect(await engine.process(j)).toBe('acked');
    expect(steps).toEqual([`${j.data.event.id} ${(j.data.order as { key: string }).key}`]);
    expect(await store.claim(j.data.event.id, 'probe', 1000)).toBe('completed');
  });

  it('drain waits for the reports giveUp started', async () => {
    const { send } = queued();
    const j = await send();
    const gate = deferred<void>();
    const reported: string[] = [];
    const engine = fakeEngine(
      {},
      {
        onError: async () => {
          await gate.promise;
          reported.push('reported');
        },
      },
    );
    void engine.worker.giveUp(j, new Error('x'));
    const drained = engine.worker.drain();
    setTimeout(() => gate.resolve(), 10);
    await drained;
    expect(reported).toEqual(['reported']);
  });
});
