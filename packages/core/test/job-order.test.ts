import {
  type AnyWebhookEvent,
  createReceiver,
  createTestDelivery,
  type DedupeStore,
  type EventType,
  MemoryStore,
} from '@sms-webhooks/core';
import { type AdapterReceiver, type DispatchedEvent, JobOrder } from '@sms-webhooks/core/queue';
import { VirtualClock } from '@sms-webhooks/core/testing';
import { describe, expect, it } from 'vitest';
import { captureLogger, secret } from './helpers.js';

const T0 = Date.parse('2026-11-27T10:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function delivery(type: EventType, message: string, updatedAt: string) {
  return createTestDelivery(type, { secret, data: { id: message, updated_at: updatedAt } as never });
}

/** A receiver with `order` whose dispatch keeps what it was handed, as a queue would. */
function queued(store: DedupeStore = new MemoryStore()) {
  const jobs: DispatchedEvent[] = [];
  const dispatch = Object.assign(async (d: DispatchedEvent) => void jobs.push(d), { appliesOrder: true });
  const receiver = createReceiver({ secret, store, order: true, dispatch, logger: captureLogger() });
  receiver.on(['message.sent', 'message.delivered', 'message.failed', 'message.replied'], () => {});
  const send = (d: ReturnType<typeof delivery>) => receiver.handle({ rawBody: d.body, headers: d.headers });
  return { receiver, jobs, send };
}

describe('order with dispatch: the receiver puts the slot on the job, the worker takes its turn (JobOrder)', () => {
  it('the receiver claims no object: each status job carries its message and version, a reply none', async () => {
    const store = new MemoryStore();
    const calls: string[] = [];
    const claimOrder = store.claimOrder.bind(store);
    store.claimOrder = (...args) => {
      calls.push('claimOrder');
      return claimOrder(...args);
    };
    const { jobs, send } = queued(store);
    // Newer first: the receiver does not answer stale, the worker decides when it runs the jobs.
    expect((await send(delivery('message.delivered', 'msg_1', at(2)))).json).toEqual({ received: true });
    expect((await send(delivery('message.sent', 'msg_1', at(1)))).json).toEqual({ received: true });
    expect((await send(delivery('message.replied', 'msg_1', at(3)))).json).toEqual({ received: true });
    expect(calls).toEqual([]);
    expect(jobs.map((j) => j.order)).toEqual([
      { key: 'message:msg_1', version: `${String(T0 + 2000).padStart(15, '0')}.2` },
      { key: 'message:msg_1', version: `${String(T0 + 1000).padStart(15, '0')}.1` },
      undefined,
    ]);
  });

  it('stale, wait and run, with the receiver rule: a tie runs, older is stale, and the version moves only on complete', async () => {
    const store = new MemoryStore();
    const { jobs, send, receiver } = queued(store);
    const staleSeen: string[] = [];
    receiver.onStale((event, object) => void staleSeen.push(`${event.type} ${object.key}`));
    for (const [type, s] of [
      ['message.sent', 1],
      ['message.delivered', 2],
      ['message.failed', 2],
    ] as const) {
      await send(delivery(type, 'msg_2', at(s)));
    }
    const [sent, delivered, failed] = jobs as [DispatchedEvent, DispatchedEvent, DispatchedEvent];
    const order = new JobOrder<string>({
      store,
      leaseMs: 60_000,
      retainMs: 60_000,
      logger: captureLogger(),
      owner: 'test',
      onStale: (receiver as AdapterReceiver).reportStale,
    });

    const first = await order.turn(delivered.event, delivered.order, 'job-delivered');
    expect(first.action).toBe('run');
    expect((await order.turn(sent.event, sent.order, 'job-sent')).action).toBe('wait');
    if (first.action !== 'run') throw new Error('unreachable');
    await first.held!.release(); // its handlers failed: the version stays
    const again = await order.turn(sent.event, sent.order, 'job-sent');
    expect(again.action).toBe('run');
    if (again.action === 'run') await again.held!.complete();
    const redo = await order.turn(delivered.event, delivered.order, 'job-delivered');
    if (redo.action === 'run') await redo.held!.complete();
    expect(redo.action).toBe('run');
    // The same version and rank as the completed delivered: a tie, so it runs too.
    const tie = await order.turn(failed.event, failed.order, 'job-failed');
    expect(tie.action).toBe('run');
    if (tie.action === 'run') await tie.held!.complete();
    // Older than what completed: stale, and the receiver's onStale hooks hear of it.
    const late = await order.turn(sent.event, sent.order, 'job-sent');
    expect(late).toEqual({ action: 'stale', key: 'message:msg_2' });
    expect(staleSeen).toEqual(['message.sent message:msg_2']);
  });

  it('a job without a slot, or with an unreadable one, runs unordered; a store without versions is warned about once', async () => {
    const logger = captureLogger();
    const event = delivery('message.sent', 'msg_3', at(1)).event as AnyWebhookEvent;
    const bare = {
      localKeys: false,
      claim: async () => 'claimed',
      complete: async () => true,
      release: async () => true,
    };
    const ordered = new JobOrder({
      store: new MemoryStore(),
      leaseMs: 1000,
      retainMs: 1000,
      logger,
      owner: 'test',
    });
    expect(await ordered.turn(event, undefined, 0)).toEqual({ action: 'run' });
    expect(await ordered.turn(event, { key: 42 }, 0)).toEqual({ action: 'run' });
    expect(logger.lines.filter((l) => l.includes('unreadable'))).toHaveLength(1);
    const unordered = new JobOrder({
      store: bare as never,
      leaseMs: 1000,
      retainMs: 1000,
      logger,
      owner: 'test',
    });
    const slot = { key: 'message:msg_3', version: '1' };
    expect(await unordered.turn(event, slot, 0)).toEqual({ action: 'run' });
    expect(await unordered.turn(event, slot, 0)).toEqual({ action: 'run' });
    expect(logger.lines.filter((l) => l.includes('keeps no versions'))).toHaveLength(1);
  });

  it('renews the object lease while the job runs, and stops once it ends', async () => {
    const clock = new VirtualClock();
    const store = new MemoryStore({ now: () => clock.now() });
    const renewed: string[] = [];
    const renewOrder = store.renewOrder.bind(store);
    store.renewOrder = (...args) => {
      renewed.push(args[0]);
      return renewOrder(...args);
    };
    const order = new JobOrder({
      store,
      leaseMs: 3000,
      retainMs: 60_000,
      logger: captureLogger(),
      owner: 'test',
      clock,
    });
    const event = delivery('message.sent', 'msg_4', at(1)).event as AnyWebhookEvent;
    const turn = await order.turn(event, { key: 'message:msg_4', version: '000000000000001.1' }, 0);
    if (turn.action !== 'run') throw new Error('expected to run');
    await clock.advance(2500);
    expect(renewed).toEqual(['message:msg_4', 'message:msg_4']);
    await turn.held!.complete();
    await clock.advance(5000);
    expect(renewed).toHaveLength(2);
  });
});
