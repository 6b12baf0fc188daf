import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createReceiver } from '../receiver/create-receiver.js';
import type { DedupeStore } from '../receiver/dedupe-store.js';
import type { EventType } from '../verify/event-types.js';
import { signPayload } from '../verify/sign-payload.js';
import { createTestDelivery } from '../verify/test-delivery.js';
import { sleep, type TestApi } from './test-api.js';

type Store = DedupeStore;
const HOUR = 3_600_000;
const object = () => `message:msg_contract_${randomBytes(8).toString('hex')}`;
/** Versions of fixed-width instants and an id: to a store any version is a string, compared bytewise. */
const v = (at: number, id = 'evt_a') => `${String(at).padStart(15, '0')}.${'0'.repeat(15)}.${id}`;

function ops(store: Store) {
  for (const m of ['claimOrder', 'completeOrder', 'releaseOrder', 'renewOrder'] as const) {
    assert.equal(
      typeof store[m],
      'function',
      `the store has no ${m}(): the receiver's \`order\` needs all four`,
    );
  }
  return {
    claim: (k: string, version: string, token: string, ms = HOUR) => store.claimOrder!(k, version, token, ms),
    complete: (k: string, version: string, token: string, ms = HOUR) =>
      store.completeOrder!(k, version, token, ms),
    release: (k: string, token: string) => store.releaseOrder!(k, token),
    renew: (k: string, token: string, ms: number) => store.renewOrder!(k, token, ms),
  };
}

/** The rows of the order methods (the receiver's `order` option), part of `runDedupeStoreContract`. */
export function orderContract(makeStore: () => Store | Promise<Store>, { it }: TestApi): void {
  it('order: claims a free object, reports it in flight to other tokens, not to its holder', async () => {
    const o = ops(await makeStore());
    const k = object();
    assert.equal(await o.claim(k, v(1), 'a'), 'claimed');
    assert.equal(await o.claim(k, v(2), 'b'), 'in-flight');
    assert.equal(await o.claim(k, v(1), 'a'), 'claimed');
  });

  it('order: a completed version makes older and equal versions stale, newer ones claimable', async () => {
    const o = ops(await makeStore());
    const k = object();
    await o.claim(k, v(5), 'a');
    assert.equal(await o.complete(k, v(5), 'a'), true);
    assert.equal(await o.claim(k, v(4), 'b'), 'stale');
    assert.equal(await o.claim(k, v(5), 'b'), 'stale');
    assert.equal(await o.claim(k, v(5, 'evt_b'), 'b'), 'claimed', 'same instant, later id: newer');
  });

  it('order: the completed version never goes back, whoever completes', async () => {
    const o = ops(await makeStore());
    const k = object();
    await o.claim(k, v(9), 'a');
    await o.complete(k, v(9), 'a');
    assert.equal(await o.complete(k, v(3), 'late'), false, 'not the holder');
    assert.equal(await o.claim(k, v(8), 'b'), 'stale');
    assert.equal(await o.complete(k, v(12), 'other'), false, 'advances even without the lease');
    assert.equal(await o.claim(k, v(11), 'c'), 'stale');
  });

  it('order: release frees the lease and keeps the version', async () => {
    const o = ops(await makeStore());
    const k = object();
    await o.claim(k, v(2), 'a');
    await o.complete(k, v(2), 'a');
    assert.equal(await o.claim(k, v(3), 'b'), 'claimed');
    assert.equal(await o.release(k, 'c'), false, 'another token');
    assert.equal(await o.release(k, 'b'), true);
    assert.equal(await o.claim(k, v(1), 'd'), 'stale');
    assert.equal(await o.claim(k, v(3), 'd'), 'claimed');
  });

  it('order: a lease that ran out frees the object; renew keeps it', async () => {
    const o = ops(await makeStore());
    const k = object();
    assert.equal(await o.claim(k, v(1), 'dead', 60), 'claimed');
    await sleep(120);
    assert.equal(await o.claim(k, v(2), 'next', 300), 'claimed');
    assert.equal(await o.renew(k, 'dead', HOUR), false);
    assert.equal(await o.renew(k, 'next', HOUR), true);
    await sleep(400);
    assert.equal(await o.claim(k, v(3), 'other'), 'in-flight', 'renewed past its first lease');
    assert.equal(await o.complete(k, v(2), 'next'), true);
  });

  it('order: grants exactly one of many concurrent claims of one object', async () => {
    const o = ops(await makeStore());
    const k = object();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => o.claim(k, v(100 + i), `t${i}`)));
    assert.equal(results.filter((r) => r === 'claimed').length, 1);
    assert.equal(results.filter((r) => r === 'in-flight').length, 19);
  });

  it('order: compares versions bytewise, and keeps objects apart', async () => {
    const o = ops(await makeStore());
    const k1 = object();
    const k2 = `${k1}_\u00e9`;
    await o.claim(k1, v(10, 'evt_b'), 'a');
    await o.complete(k1, v(10, 'evt_b'), 'a');
    assert.equal(await o.claim(k1, v(10, 'evt_a'), 'x'), 'stale');
    assert.equal(await o.claim(k1, v(10, 'evt_ba'), 'x'), 'claimed');
    assert.equal(await o.claim(k2, v(1), 'y'), 'claimed', 'another object');
  });
}

/**
 * The rows of `claimWithOrder` and `completeWithOrder`, the optional one-step claim and completion of an
 * event and its object: each row passes at once for a store without the method (the receiver then
 * makes the two calls the other rows check).
 */
export function claimWithOrderContract(makeStore: () => Store | Promise<Store>, { it }: TestApi): void {
  const event = () => `evt_contract_${randomBytes(8).toString('hex')}`;
  const both = async () => {
    const store = await makeStore();
    if (typeof store.claimWithOrder !== 'function') return undefined;
    const o = ops(store);
    const claimBoth = (e: string, k: string, version: string, token: string, ms = HOUR, retainMs = HOUR) =>
      store.claimWithOrder!(e, token, ms, { key: k, version, retainMs });
    return { store, o, claimBoth };
  };

  it('claimWithOrder: holds the event and its object under one token, for leaseMs', async () => {
    const s = await both();
    if (s === undefined) return;
    const [e, k] = [event(), object()];
    assert.equal(await s.claimBoth(e, k, v(1), 'a'), 'claimed');
    assert.equal(await s.store.claim(e, 'b', HOUR), 'in-flight', 'the event is held');
    assert.equal(await s.o.claim(k, v(2), 'b'), 'in-flight', 'the object is held');
    assert.equal(await s.o.complete(k, v(1), 'a'), true);
    assert.equal(await s.store.complete(e, 'a', HOUR), true);
    assert.equal(await s.o.claim(k, v(1), 'c'), 'stale');
    const [e2, k2] = [event(), object()];
    assert.equal(await s.claimBoth(e2, k2, v(1), 'short', 60), 'claimed');
    await sleep(120);
    assert.equal(await s.store.claim(e2, 'next', HOUR), 'claimed', 'the event lease ran out');
    assert.equal(await s.o.claim(k2, v(2), 'next'), 'claimed', 'the object lease ran out');
  });

  it('claimWithOrder: a taken or completed event answers as claim does, and leaves its object alone', async () => {
    const s = await both();
    if (s === undefined) return;
    const [e, k] = [event(), object()];
    await s.store.claim(e, 'a', HOUR);
    assert.equal(await s.claimBoth(e, k, v(1), 'b'), 'in-flight');
    assert.equal(await s.o.claim(k, v(1), 'c'), 'claimed', 'the object was not taken');
    await s.o.release(k, 'c');
    await s.store.complete(e, 'a', HOUR);
    assert.equal(await s.claimBoth(e, k, v(1), 'd'), 'completed');
    assert.equal(await s.o.claim(k, v(1), 'c'), 'claimed', 'still not taken');
  });

  it('claimWithOrder: a stale event is recorded completed for retainMs, and the object is not taken', async () => {
    const s = await both();
    if (s === undefined) return;
    const [e, k] = [event(), object()];
    await s.o.claim(k, v(5), 'a');
    await s.o.complete(k, v(5), 'a');
    assert.equal(await s.claimBoth(e, k, v(4), 'b', HOUR, 150), 'stale');
    assert.equal(await s.store.claim(e, 'c', HOUR), 'completed', 'a redelivery is a duplicate');
    assert.equal(await s.o.claim(k, v(6), 'c'), 'claimed', 'the object is free');
    await sleep(250);
    assert.equal(await s.store.claim(e, 'd', HOUR), 'claimed', 'its record is kept for retainMs only');
  });

  it('claimWithOrder: an object in flight leaves the event free for a later delivery', async () => {
    const s = await both();
    if (s === undefined) return;
    const [e, k] = [event(), object()];
    assert.equal(await s.o.claim(k, v(1), 'a'), 'claimed');
    assert.equal(await s.claimBoth(e, k, v(2), 'b'), 'object-in-flight');
    assert.equal(await s.store.claim(e, 'c', HOUR), 'claimed', 'the event was not held');
    await s.store.release(e, 'c');
    await s.o.release(k, 'a');
    assert.equal(await s.claimBoth(e, k, v(2), 'd'), 'claimed');
  });

  it('completeWithOrder: advances the version, frees the object and completes the event, in one step', async () => {
    const store = await makeStore();
    if (typeof store.completeWithOrder !== 'function') return;
    const o = ops(store);
    const [e, k] = [event(), object()];
    await store.claim(e, 'a', HOUR);
    await o.claim(k, v(7), 'a');
    assert.equal(await store.completeWithOrder(e, 'a', HOUR, { key: k, version: v(7) }), true);
    assert.equal(await store.claim(e, 'b', HOUR), 'completed');
    assert.equal(await o.claim(k, v(7), 'b'), 'stale');
    assert.equal(await o.claim(k, v(8), 'b'), 'claimed', 'the lease was freed');
    // Not the event's holder: false, and the event stays as it was; the version still advances.
    const [e2, k2] = [event(), object()];
    await store.claim(e2, 'c', HOUR);
    assert.equal(await store.completeWithOrder(e2, 'intruder', HOUR, { key: k2, version: v(3) }), false);
    assert.equal(await store.claim(e2, 'd', HOUR), 'in-flight');
    assert.equal(await o.claim(k2, v(2), 'd'), 'stale');
  });

  it('claimWithOrder: of many events of one object at once, exactly one is claimed', async () => {
    const s = await both();
    if (s === undefined) return;
    const k = object();
    const events = Array.from({ length: 20 }, () => event());
    const results = await Promise.all(events.map((e, i) => s.claimBoth(e, k, v(100 + i), `t${i}`)));
    assert.equal(results.filter((r) => r === 'claimed').length, 1);
    assert.equal(results.filter((r) => r === 'object-in-flight').length, 19);
    // Only the winner's event is held: every other one can be claimed.
    const won = results.indexOf('claimed');
    for (const [i, e] of events.entries()) {
      assert.equal(await s.store.claim(e, 'again', HOUR), i === won ? 'in-flight' : 'claimed');
    }
    const e = event();
    const same = await Promise.all(
      Array.from({ length: 20 }, (_, i) => s.claimBoth(e, object(), v(1), `u${i}`)),
    );
    assert.equal(same.filter((r) => r === 'claimed').length, 1, 'one event, many objects');
    assert.equal(same.filter((r) => r === 'in-flight' || r === 'object-in-flight').length, 19);
  });
}

/**
 * The receiver's `order: true` rule against a store (replies, ties on `updated_at`): the versions the
 * receiver writes, compared by this store. Part of `runDedupeStoreContract(…, { order: true })`.
 */
export function orderRuleContract(makeStore: () => Store | Promise<Store>, { it }: TestApi): void {
  const secret = 'whsec_order_rule_contract';
  const quiet = { warn() {}, error() {} };
  const signed = (type: EventType, message: string, updatedAt: string, id?: string) => {
    const template = createTestDelivery(type, {
      secret,
      id,
      data: { id: message, updated_at: updatedAt } as never,
    });
    // Made in the same instant as the other events of the row: created_at as updated_at.
    const event = { ...template.event, created_at: updatedAt };
    const body = JSON.stringify(event);
    const headers = { ...template.headers, 'x-service-signature': signPayload(body, secret) };
    return { body, headers };
  };
  const app = async () => {
    const store = await makeStore();
    const receiver = createReceiver({ secret, store, order: true, respond: 'after-handlers', logger: quiet });
    const send = async (d: { body: string; headers: Record<string, string> }) => {
      const r = await receiver.handle({ rawBody: d.body, headers: d.headers });
      return { status: r.status, json: r.json };
    };
    return { receiver, send };
  };
  const message = () => `msg_rule_${randomBytes(8).toString('hex')}`;

  it('order: true: two replies to one message are both handled, whatever their order and failures', async () => {
    const { receiver, send } = await app();
    const msg = message();
    const texts: string[] = [];
    let blips = 1;
    receiver.on('message.replied', (event) => {
      const text = (event.data as { metadata?: { text?: string } }).metadata?.text ?? event.id;
      if (text === 'first' && blips-- > 0) throw new Error('database blip');
      texts.push(text);
    });
    const reply = (text: string, at: string) => {
      const template = createTestDelivery('message.replied', {
        secret,
        data: { id: msg, updated_at: at, metadata: { text } } as never,
      });
      return { body: template.body, headers: template.headers };
    };
    const first = reply('first', '2026-11-26T10:00:01Z');
    const second = reply('second', '2026-11-26T10:00:02Z');
    assert.equal((await send(first)).status, 500, 'the first reply fails once');
    assert.deepEqual(await send(second), { status: 200, json: { received: true } });
    assert.deepEqual(await send(first), { status: 200, json: { received: true } }, 'its retry runs');
    assert.deepEqual(texts, ['second', 'first']);
    // A status of the same message is still ordered on its own: replies did not move its version.
    const statuses: string[] = [];
    receiver.on(['message.sent', 'message.delivered'], (event) => void statuses.push(event.type));
    assert.deepEqual((await send(signed('message.sent', msg, '2026-11-26T09:59:00Z'))).json, {
      received: true,
    });
    assert.deepEqual(statuses, ['message.sent']);
  });

  it('order: true: message.sent then message.failed in the same instant: the failure is handled, whatever the ids', async () => {
    const { receiver, send } = await app();
    const seen: string[] = [];
    receiver.on(
      ['message.sent', 'message.delivered', 'message.failed'],
      (event) => void seen.push(event.type),
    );
    const at = '2026-11-26T10:00:05Z';
    // Ids on both sides of each other: the rule must not depend on them.
    for (const [sentId, failedId] of [
      ['evt_zzzz', 'evt_aaaa'],
      ['evt_aaaa', 'evt_zzzz'],
    ] as const) {
      const msg = message();
      seen.length = 0;
      const suffix = randomBytes(4).toString('hex');
      assert.deepEqual((await send(signed('message.sent', msg, at, `${sentId}_${suffix}`))).json, {
        received: true,
      });
      assert.deepEqual((await send(signed('message.failed', msg, at, `${failedId}_${suffix}`))).json, {
        received: true,
      });
      // And the other way round: the sent that arrives after its failure, same instant, is stale.
      assert.deepEqual((await send(signed('message.sent', msg, at, `evt_late_${suffix}`))).json, {
        received: true,
        stale: true,
      });
      assert.deepEqual(seen, ['message.sent', 'message.failed']);
    }
  });

  it('order: true: message.delivered and message.failed of one instant (a true tie) are both handled, in either order', async () => {
    const { receiver, send } = await app();
    const seen: string[] = [];
    receiver.on(
      ['message.sent', 'message.delivered', 'message.failed'],
      (event) => void seen.push(event.type),
    );
    const at = '2026-11-26T10:00:07Z';
    // Equal updated_at, created_at and rank: only the ids differ, on both sides of each other.
    for (const [first, second] of [
      ['message.delivered', 'message.failed'],
      ['message.failed', 'message.delivered'],
    ] as const) {
      for (const [firstId, secondId] of [
        ['evt_zzzz', 'evt_aaaa'],
        ['evt_aaaa', 'evt_zzzz'],
      ] as const) {
        const msg = message();
        seen.length = 0;
        const suffix = randomBytes(4).toString('hex');
        for (const [type, id] of [
          [first, firstId],
          [second, secondId],
        ] as const) {
          assert.deepEqual((await send(signed(type, msg, at, `${id}_${suffix}`))).json, { received: true });
        }
        assert.deepEqual(seen, [first, second], `${first} ${firstId} then ${second} ${secondId}`);
        // Still ordered against what is older: a message.sent of the same instant is stale.
        assert.deepEqual((await send(signed('message.sent', msg, at, `evt_sent_${suffix}`))).json, {
          received: true,
          stale: true,
        });
        assert.deepEqual(seen, [first, second]);
      }
    }
  });
}
