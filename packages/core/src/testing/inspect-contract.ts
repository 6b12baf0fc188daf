import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { DedupeStore } from '../receiver/dedupe-store.js';
import { sleep, type TestApi } from './test-api.js';

const HOUR = 3_600_000;
const key = () => `evt_inspect_${randomBytes(8).toString('hex')}`;

/** What the runners hand a test to skip it: vitest's and node:test's context, mocha's `this`. */
interface Skippable {
  skip?: (note?: string) => void;
}

/** Registers one row of `inspect`: `fn` gets the store's `inspect` and the store. */
type InspectRow = (
  title: string,
  fn: (
    inspect: (k: string) => ReturnType<NonNullable<DedupeStore['inspect']>>,
    store: DedupeStore,
  ) => Promise<void>,
) => void;

/**
 * The rows of the optional `inspect` (what the audit reads), part of `runDedupeStoreContract`. A store
 * without it gets each row skipped with its name in the note, where the runner can skip from inside a test.
 */
export function inspectContract(
  name: string,
  makeStore: () => DedupeStore | Promise<DedupeStore>,
  { it }: TestApi,
): void {
  const row: InspectRow = (title, fn) =>
    // A rest parameter keeps the function's length 0: jest and mocha take a declared one for `done`.
    it(`inspect: ${title}`, async function (this: Skippable | undefined, ...args: Skippable[]) {
      const store = await makeStore();
      if (typeof store.inspect !== 'function') {
        const note = `${name} has no inspect(): the audit cannot read what it holds`;
        const ctx = typeof args[0]?.skip === 'function' ? args[0] : this;
        ctx?.skip?.call(ctx, note);
        return;
      }
      await fn((k) => store.inspect!(k), store);
    });
  stateRows(row);
  inspectManyRows(row);
  keepDeliveryRows(row);
}

/** What `inspect` reads for each state a key can be in, and that reading changes none of them. */
function stateRows(row: InspectRow): void {
  row('knows nothing of a key never claimed', async (inspect) => {
    assert.equal(await inspect(key()), undefined);
  });

  row('reads a live claim as in-flight until its lease ends', async (inspect, store) => {
    const k = key();
    const before = Date.now();
    await store.claim(k, 'a', HOUR);
    const seen = await inspect(k);
    assert.equal(seen?.state, 'in-flight');
    // The server's clock may lead or lag ours a little; a second either way is plenty on one machine.
    assert.ok(seen.expiresAt >= before + HOUR - 1000 && seen.expiresAt <= Date.now() + HOUR + 1000);
  });

  row('reads a completed key as completed until its retention ends', async (inspect, store) => {
    const k = key();
    await store.claim(k, 'a', HOUR);
    const before = Date.now();
    await store.complete(k, 'a', 2 * HOUR);
    const seen = await inspect(k);
    assert.equal(seen?.state, 'completed');
    assert.ok(seen.expiresAt >= before + 2 * HOUR - 1000 && seen.expiresAt <= Date.now() + 2 * HOUR + 1000);
  });

  row('knows nothing of a released key, an expired lease or an expired retention', async (inspect, store) => {
    const [released, lapsed, forgotten] = [key(), key(), key()];
    await store.claim(released, 'a', HOUR);
    await store.release(released, 'a');
    await store.claim(lapsed, 'a', 60);
    await store.claim(forgotten, 'a', HOUR);
    await store.complete(forgotten, 'a', 60);
    await sleep(120);
    assert.deepEqual(
      [await inspect(released), await inspect(lapsed), await inspect(forgotten)],
      [undefined, undefined, undefined],
    );
  });

  row('only reads: claims and completions go on as before', async (inspect, store) => {
    const [held, done, free] = [key(), key(), key()];
    await store.claim(held, 'a', HOUR);
    await store.claim(done, 'a', HOUR);
    await store.complete(done, 'a', HOUR);
    for (const k of [held, done, free]) await inspect(k);
    assert.equal(await store.claim(held, 'b', HOUR), 'in-flight');
    assert.equal(await store.claim(done, 'b', HOUR), 'completed');
    assert.equal(await store.claim(free, 'b', HOUR), 'claimed');
    assert.equal(await store.complete(held, 'a', HOUR), true);
  });

  row('reads long and unusual keys as they were claimed', async (inspect, store) => {
    const long = `${key()}_${'x'.repeat(1000)}`;
    const unusual = `${key()}:é🙂 \t%`;
    for (const k of [long, unusual]) {
      await store.claim(k, 'a', HOUR);
      await store.complete(k, 'a', HOUR);
      assert.equal((await inspect(k))?.state, 'completed');
      assert.equal(await inspect(`${k}_other`), undefined);
    }
  });
}

/** `inspectMany`, when the store has it: `inspect`'s answers in order, for a batch as large as the audit's. */
function inspectManyRows(row: InspectRow): void {
  row(
    'inspectMany (when the store has it) answers each key in order, as inspect does',
    async (inspect, store) => {
      if (typeof store.inspectMany !== 'function') return;
      const [held, done, free] = [key(), key(), key()];
      await store.claim(held, 'a', HOUR);
      await store.claim(done, 'a', HOUR);
      await store.complete(done, 'a', HOUR);
      const unusual = `${key()}:é🙂 \t%_${'x'.repeat(300)}`;
      await store.claim(unusual, 'a', HOUR);
      assert.deepEqual(await store.inspectMany([]), []);
      const keys = [free, done, held, done, unusual];
      const many = await store.inspectMany(keys);
      const one = await Promise.all(keys.map(inspect));
      assert.deepEqual(
        many.map((s) => s?.state),
        [undefined, 'completed', 'in-flight', 'completed', 'in-flight'],
      );
      assert.deepEqual(
        many.map((s) => s?.state),
        one.map((s) => s?.state),
      );
      // A batch as large as the audit sends.
      const batch = Array.from({ length: 500 }, (_, i) => (i % 50 === 0 ? done : key()));
      const states = (await store.inspectMany(batch)).map((s) => s?.state);
      assert.equal(states.filter((s) => s === 'completed').length, 10);
      assert.equal(states.filter((s) => s === undefined).length, 490);
    },
  );
}

/** `keepDelivery` and `keptDelivery`, when the store has them: the last delivery kept, for its retention. */
function keepDeliveryRows(row: InspectRow): void {
  row(
    'keepDelivery (when the store has it) keeps a delivery for retainMs, replaced by a later one',
    async (_inspect, store) => {
      if (typeof store.keepDelivery !== 'function' || typeof store.keptDelivery !== 'function') return;
      const [k, other, short] = [key(), key(), `${key()}:é🙂 \t%_${'x'.repeat(300)}`];
      const delivery = {
        eventId: k,
        eventType: 'message.delivered',
        attempt: 1,
        receivedAt: Date.now(),
        tenant: undefined,
        bytes: 17,
        body: '{"id":"é🙂\\u0000"}',
      };
      // A store may drop undefined fields (JSON does): compare them as undefined either way.
      const read = async (id: string) => {
        const d = await store.keptDelivery!(id);
        return d && { ...d, attempt: d.attempt, tenant: d.tenant, body: d.body };
      };
      assert.equal(await store.keptDelivery(k), undefined);
      await store.keepDelivery(k, delivery, HOUR);
      assert.deepEqual(await read(k), delivery);
      await store.keepDelivery(k, { ...delivery, attempt: 2, tenant: 'a/b' }, HOUR);
      assert.deepEqual(await read(k), { ...delivery, attempt: 2, tenant: 'a/b' });
      // A body over the limit: only the record.
      await store.keepDelivery(
        other,
        { ...delivery, eventId: other, body: undefined, bytes: 1_000_000 },
        HOUR,
      );
      const marker = await store.keptDelivery(other);
      assert.equal(marker?.body, undefined);
      assert.equal(marker?.bytes, 1_000_000);
      await store.keepDelivery(short, { ...delivery, eventId: short }, 60);
      await sleep(120);
      assert.equal(await store.keptDelivery(short), undefined);
      // Keeping is not claiming.
      assert.equal(await store.claim(k, 'a', HOUR), 'claimed');
    },
  );
}
