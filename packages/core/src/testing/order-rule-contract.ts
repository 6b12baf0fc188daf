import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createReceiver } from '../receiver/create-receiver.js';
import type { EventType } from '../verify/event-types.js';
import { signPayload } from '../verify/sign-payload.js';
import { createTestDelivery } from '../verify/test-delivery.js';
import type { StoreFactory } from './dedupe-store-kit.js';
import type { TestApi } from './test-api.js';

const secret = 'whsec_order_rule_contract';
const quiet = { warn() {}, error() {} };

/** A delivery about `message` updated at `updatedAt`, signed with the rows' secret. */
function signed(type: EventType, message: string, updatedAt: string, id?: string) {
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
}

/** A receiver with `order: true` on a fresh store, and `send`: a delivery in, the receiver's answer out. */
async function app(makeStore: StoreFactory) {
  const store = await makeStore();
  const receiver = createReceiver({ secret, store, order: true, respond: 'after-handlers', logger: quiet });
  const send = async (d: { body: string; headers: Record<string, string> }) => {
    const r = await receiver.handle({ rawBody: d.body, headers: d.headers });
    return { status: r.status, json: r.json };
  };
  return { receiver, send };
}

const message = () => `msg_rule_${randomBytes(8).toString('hex')}`;

/** Two ids on both sides of each other, either way round: the rule must not depend on them. */
const ID_ORDERS = [
  ['evt_zzzz', 'evt_aaaa'],
  ['evt_aaaa', 'evt_zzzz'],
] as const;

/** `app`, with the statuses its handlers saw, in order. */
async function statusApp(makeStore: StoreFactory) {
  const { receiver, send } = await app(makeStore);
  const seen: string[] = [];
  receiver.on(['message.sent', 'message.delivered', 'message.failed'], (event) => void seen.push(event.type));
  return { send, seen };
}

/**
 * The receiver's `order: true` rule against a store (replies, ties on `updated_at`): the versions the
 * receiver writes, compared by this store. Part of `runDedupeStoreContract(…, { order: true })`.
 */
export function orderRuleContract(makeStore: StoreFactory, api: TestApi): void {
  replyRows(makeStore, api);
  tieRows(makeStore, api);
}

/** Replies to one message: each is handled, whatever their order and failures, and moves no status. */
function replyRows(makeStore: StoreFactory, { it }: TestApi): void {
  it('order: true: two replies to one message are both handled, whatever their order and failures', async () => {
    const { receiver, send } = await app(makeStore);
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
}

/** Statuses of one instant: the failure after a sent, and both sides of a true tie, whatever the ids. */
function tieRows(makeStore: StoreFactory, { it }: TestApi): void {
  it('order: true: message.sent then message.failed in the same instant: the failure is handled, whatever the ids', async () => {
    const { send, seen } = await statusApp(makeStore);
    const at = '2026-11-26T10:00:05Z';
    for (const [sentId, failedId] of ID_ORDERS) {
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
    const { send, seen } = await statusApp(makeStore);
    const at = '2026-11-26T10:00:07Z';
    // Equal updated_at, created_at and rank: only the ids differ, on both sides of each other.
    for (const [first, second] of [
      ['message.delivered', 'message.failed'],
      ['message.failed', 'message.delivered'],
    ] as const) {
      for (const [firstId, secondId] of ID_ORDERS) {
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
