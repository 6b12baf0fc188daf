import assert from 'node:assert/strict';
import { createReceiver } from '../receiver/create-receiver.js';
import type { DedupeStore } from '../receiver/dedupe-store.js';
import { MemoryStore } from '../receiver/memory-store.js';
import type { StandardSchemaV1 } from '../verify/standard-schema.js';
import { createTestDelivery } from '../verify/test-delivery.js';
import {
  assertError,
  assertJson,
  type ContractRows,
  defer,
  OTHER_SECRET,
  post,
  quietLogger,
  SECRET,
  signed,
  TENANT_SECRETS,
  within,
} from './adapter-contract-kit.js';

/** A delivery handed over and answered: 200 before or after its handlers, 409 while it runs elsewhere. */
export function answerRows({ it, withServer }: ContractRows): void {
  it('accepts a valid delivery; the handler gets the typed event and ctx.attempt', async () => {
    const seen = defer<{ to: string; id: string; attempt?: number }>();
    await withServer(
      { respond: 'after-handlers' },
      (r) =>
        r.on('message.failed', (event, ctx) =>
          seen.resolve({ to: event.data.to, id: event.id, attempt: ctx.attempt }),
        ),
      async (url) => {
        const d = createTestDelivery('message.failed', { secret: SECRET, attempt: 3 });
        assertJson(await post(url, d), 200, { received: true });
        assert.deepEqual(await within(seen.promise, 'handler call'), {
          to: d.event.data.to,
          id: d.event.id,
          attempt: 3,
        });
      },
    );
  });

  it('answers before a slow handler finishes (respond: immediately), and drain waits for it', async () => {
    const gate = defer();
    const started = defer();
    let finished = false;
    await withServer(
      { respond: 'immediately' },
      (r) =>
        r.on('message.sent', async () => {
          started.resolve();
          await gate.promise;
          finished = true;
        }),
      async (url, receiver) => {
        const d = createTestDelivery('message.sent', { secret: SECRET });
        assertJson(await post(url, d), 200, { received: true });
        assert.equal(finished, false, 'the answer arrived while the handler was still waiting');
        await within(started.promise, 'background handler start');
        const drained = receiver.drain();
        gate.resolve();
        await within(drained, 'drain');
        assert.equal(finished, true);
      },
    );
  });

  it('answers 409 in_flight with Retry-After while the same event is being handled', async () => {
    const gate = defer();
    const started = defer();
    let calls = 0;
    await withServer(
      { respond: 'after-handlers' },
      (r) =>
        r.on('message.delivered', async () => {
          calls++;
          started.resolve();
          await gate.promise;
        }),
      async (url) => {
        const d = createTestDelivery('message.delivered', { secret: SECRET });
        const first = post(url, d);
        await within(started.promise, 'first handler start');
        const second = await post(url, d);
        assertError(second, 409, 'in_flight');
        assert.ok(Number(second.headers['retry-after']) > 0, 'Retry-After is a positive number of seconds');
        gate.resolve();
        assertJson(await first, 200, { received: true });
        assertJson(await post(url, d), 200, { received: true, duplicate: true });
        assert.equal(calls, 1);
      },
    );
  });
}

/** Every delivery reaches the receiver: whatever its content type, and many of them on one server. */
export function handoverRows({ it, withServer }: ContractRows): void {
  it('verifies deliveries whatever their content-type, or with none', async () => {
    const ids: string[] = [];
    await withServer(
      { respond: 'after-handlers' },
      (r) => r.on('message.sent', (e) => void ids.push(e.id)),
      async (url) => {
        const types = [
          'application/json',
          'application/json; charset=utf-8',
          'text/plain',
          'application/octet-stream',
          'application/x-www-form-urlencoded',
          'application/vnd.odd+json',
          undefined,
        ];
        for (const type of types) {
          const d = createTestDelivery('message.sent', { secret: SECRET });
          const { 'content-type': _, ...headers } = d.headers;
          const reply = await post(url, {
            body: d.body,
            headers: type === undefined ? headers : { ...headers, 'content-type': type },
          });
          assertJson(reply, 200, { received: true });
        }
        assert.equal(ids.length, types.length);
      },
    );
  });

  it('keeps working across many deliveries on one server (no leaked state between requests)', async () => {
    const store = new MemoryStore();
    let calls = 0;
    await withServer(
      { store, respond: 'after-handlers' },
      (r) => r.on('message.sent', () => void calls++),
      async (url) => {
        const deliveries = Array.from({ length: 20 }, () =>
          createTestDelivery('message.sent', { secret: SECRET }),
        );
        const replies = await Promise.all(deliveries.map((d) => post(url, d)));
        for (const reply of replies) assertJson(reply, 200, { received: true });
        assert.equal(calls, 20);
      },
    );
  });
}

/** The bytes and headers reach the receiver as sent: the body byte for byte, the attempt header as given. */
export function asSentRows({ it, withServer }: ContractRows): void {
  it('hands the body over byte for byte: multi-byte UTF-8, CRLF and trailing spaces verify', async () => {
    const seen = defer<string>();
    await withServer(
      { respond: 'after-handlers' },
      (r) => r.on('message.replied', (event) => seen.resolve(String(event.data.metadata.note))),
      async (url) => {
        const text = 'Grüße, 東京 👋\r\n  tabs\tand trailing spaces   ';
        const d = createTestDelivery('message.replied', {
          secret: SECRET,
          data: { metadata: { note: text } },
        });
        // Re-spaced JSON: the same event, other bytes. Only the bytes as sent may verify.
        const body = `${d.body.replace('{', '{\r\n  ')}  \n`;
        assertJson(await post(url, signed(body)), 200, { received: true });
        assert.equal(await within(seen.promise, 'handler call'), text);
      },
    );
  });

  it('gives handlers ctx.attempt 1-6 from the header, and undefined for anything else', async () => {
    const attempts: (number | undefined)[] = [];
    await withServer(
      { respond: 'after-handlers' },
      (r) => r.on('message.sent', (_event, ctx) => void attempts.push(ctx.attempt)),
      async (url, _receiver, logger) => {
        for (const value of ['6', '999', 'abc', '0', '2.5']) {
          const d = createTestDelivery('message.sent', { secret: SECRET });
          const reply = await post(url, {
            body: d.body,
            headers: { ...d.headers, 'x-service-delivery-attempt': value },
          });
          assertJson(reply, 200, { received: true });
        }
        assert.deepEqual(attempts, [6, undefined, undefined, undefined, undefined]);
        const warned = logger.lines.filter((l) => l.includes('delivery-attempt'));
        assert.equal(warned.length, 1, 'one warning, not one per delivery');
      },
    );
  });
}

/** The sender's mistakes, as the adapter writes them: 400 signature_mismatch, 422 payload_schema_mismatch. */
export function refusalRows({ it, withServer }: ContractRows): void {
  it('refuses a tampered body and a wrong secret with 400 signature_mismatch', async () => {
    let calls = 0;
    await withServer(
      {},
      (r) => r.onAny(() => void calls++),
      async (url) => {
        const d = createTestDelivery('message.delivered', { secret: SECRET });
        const tampered = d.body.replace(d.event.data.to, '+15555550999');
        assert.notEqual(tampered, d.body);
        assertError(await post(url, { body: tampered, headers: d.headers }), 400, 'signature_mismatch');
        const spaced = d.body.replace('{', '{ ');
        assertError(await post(url, { body: spaced, headers: d.headers }), 400, 'signature_mismatch');
        const forged = createTestDelivery('message.delivered', { secret: OTHER_SECRET });
        assertError(await post(url, forged), 400, 'signature_mismatch');
      },
    );
    // Handlers run after the answer here ('immediately'), where a throw is only logged: count calls.
    assert.equal(calls, 0, 'no handler runs');
  });

  it('answers 422 payload_schema_mismatch, without calling handlers, when data fails a handler schema', async () => {
    // A Standard Schema written out (no schema library needed): `to` must be a string.
    const schema: StandardSchemaV1<unknown, { to: string }> = {
      '~standard': {
        version: 1,
        vendor: 'contract',
        validate: (data) =>
          typeof (data as { to?: unknown }).to === 'string'
            ? { value: data as { to: string } }
            : { issues: [{ message: 'expected a string', path: ['to'] }] },
      },
    };
    let calls = 0;
    await withServer(
      { respond: 'after-handlers' },
      (r) => r.on('message.sent', schema, () => void calls++),
      async (url) => {
        const bad = createTestDelivery('message.sent', { secret: SECRET, data: { to: 4915 as never } });
        assertError(await post(url, bad), 422, 'payload_schema_mismatch');
        assertJson(await post(url, createTestDelivery('message.sent', { secret: SECRET })), 200, {
          received: true,
        });
      },
    );
    assert.equal(calls, 1, 'only the delivery that passed ran its handler');
  });
}

/** Our own failures, answered without a handler run or an echo: 503 store_unavailable, 500 internal_error. */
export function failureRows({ it, withServer }: ContractRows): void {
  it('answers 503 store_unavailable with Retry-After when the dedupe store fails, without calling handlers', async () => {
    const broken: DedupeStore = {
      localKeys: false,
      claim: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6399')),
      complete: () => Promise.reject(new Error('down')),
      release: () => Promise.reject(new Error('down')),
    };
    let calls = 0;
    await withServer(
      { store: broken },
      (r) => r.on('message.sent', () => void calls++),
      async (url) => {
        const reply = await post(url, createTestDelivery('message.sent', { secret: SECRET }));
        assertError(reply, 503, 'store_unavailable');
        assert.ok(Number(reply.headers['retry-after']) > 0);
      },
    );
    assert.equal(calls, 0);
  });

  it('answers 500 internal_error when receiver.handle itself fails, logs the error once and never echoes it', async () => {
    const detail = 'connect ECONNREFUSED 10.1.2.3:5432 (db-primary.internal)';
    await withServer(
      {},
      (r) => {
        // A bug, not a bad request: nothing the receiver's own policy answers.
        r.handle = () => Promise.reject(new Error(detail));
      },
      async (url, _receiver, logger) => {
        const reply = await post(url, createTestDelivery('message.sent', { secret: SECRET }));
        assertError(reply, 500, 'internal_error');
        assert.ok(!reply.text.includes('ECONNREFUSED'), `the answer does not echo the error: ${reply.text}`);
        const logged = logger.lines.filter((line) => line.includes(detail));
        assert.equal(logged.length, 1, `the error is logged once: ${JSON.stringify(logger.lines)}`);
      },
    );
  });
}

/** Route parameters (`${path}/:tenant`) reach a secret function. Only for a harness with a router. */
export function tenantRows({ it, harness, path }: ContractRows): void {
  it('passes the route parameters (`/:tenant`) to a secret function: each tenant its own secret and ctx.tenant', async () => {
    const logger = quietLogger();
    const receiver = createReceiver({
      secret: ({ tenant }) => TENANT_SECRETS[tenant],
      respond: 'after-handlers',
      logger,
    });
    const seen: { tenant?: string; secretIndex?: number; id: string }[] = [];
    receiver.on('message.sent', (event, ctx) => {
      seen.push({ tenant: ctx.tenant, secretIndex: ctx.secretIndex, id: event.id });
    });
    const route = `${path}/:tenant`;
    const server = await harness.start(receiver, { path: route });
    const at = (tenant: string) => server.url.replace(':tenant', tenant);
    try {
      const d = createTestDelivery('message.sent', { secret: TENANT_SECRETS.acme![1]! });
      assertJson(await post(at('acme'), d), 200, { received: true });
      // The same event id from another tenant is another event: it runs too.
      const other = signed(d.body, { 'x-service-event-id': d.event.id }, TENANT_SECRETS.globex![0]);
      assertJson(await post(at('globex'), { ...d, headers: { ...d.headers, ...other.headers } }), 200, {
        received: true,
      });
      assert.deepEqual(seen, [
        { tenant: 'acme', secretIndex: 1, id: d.event.id },
        { tenant: 'globex', secretIndex: 0, id: d.event.id },
      ]);
      assertError(
        await post(at('globex'), createTestDelivery('message.sent', { secret: SECRET })),
        400,
        'signature_mismatch',
      );
      assertError(
        await post(at('initech'), createTestDelivery('message.sent', { secret: SECRET })),
        404,
        'unknown_tenant',
      );
      assert.equal(seen.length, 2);
    } finally {
      await within(server.close(), 'server.close()');
    }
  });
}
