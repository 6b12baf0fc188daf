import { createReceiver, createTestDelivery, MemoryStore, type StandardSchemaV1 } from '@sms-webhooks/core';
import type { AdapterReceiver, InvalidEvent, SchemaIssue } from '@sms-webhooks/core/adapter';
import type { DispatchedEvent } from '@sms-webhooks/core/queue';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { captureLogger, secret } from './helpers.js';

// The same two schemas of message.delivered's data in each library: `tolerant` accepts unknown fields and
// any status string and turns updated_at into a Date; `strict` knows only two statuses.
const libraries = [
  {
    name: 'zod 4',
    tolerant: z.looseObject({
      id: z.string(),
      to: z.string(),
      status: z.string(),
      updated_at: z.iso.datetime().transform((s) => new Date(s)),
    }),
    strict: z.looseObject({ to: z.string(), status: z.enum(['sent', 'delivered']) }),
  },
  {
    name: 'valibot',
    tolerant: v.looseObject({
      id: v.string(),
      to: v.string(),
      status: v.string(),
      updated_at: v.pipe(
        v.string(),
        v.isoTimestamp(),
        v.transform((s) => new Date(s)),
      ),
    }),
    strict: v.looseObject({ to: v.string(), status: v.picklist(['sent', 'delivered']) }),
  },
  {
    name: 'arktype',
    tolerant: type({ id: 'string', to: 'string', status: 'string', updated_at: 'string.date.iso.parse' }),
    strict: type({ to: 'string', status: "'sent' | 'delivered'" }),
  },
] as const;

const PHONE = 4915112345678;

function deliver(receiver: ReturnType<typeof createReceiver>, d: { body: string; headers: object }) {
  return receiver.handle({ rawBody: d.body, headers: d.headers as Record<string, string> });
}

describe.each(libraries)('schemas with $name', ({ tolerant, strict }) => {
  it("a payload that passes reaches the handler as the schema's output, unknown fields and values kept", async () => {
    const receiver = createReceiver({ secret, respond: 'after-handlers' });
    const seen: unknown[] = [];
    receiver.on('message.delivered', tolerant, (event) => void seen.push(event.data));
    const d = createTestDelivery('message.delivered', {
      secret,
      data: { status: 'queued_by_carrier', carrier: 'acme' } as object,
    });

    const res = await deliver(receiver, d);

    expect(res.status).toBe(200);
    expect(seen).toHaveLength(1);
    const data = seen[0] as Record<string, unknown>;
    expect(data.updated_at).toBeInstanceOf(Date);
    expect((data.updated_at as Date).toISOString()).toBe(d.event.data.updated_at);
    expect(data.status).toBe('queued_by_carrier');
    // Nothing is stripped: fields the schema does not name pass through as sent.
    expect(data.carrier).toBe('acme');
    expect(data.metadata).toEqual(d.event.data.metadata);
  });

  it('a wrong type: 422, no handler at all, onInvalid and onRefused told, the value nowhere', async () => {
    const logger = captureLogger();
    const receiver = createReceiver({ secret, logger, respond: 'after-handlers' });
    const ran: string[] = [];
    receiver.on('message.delivered', tolerant, () => void ran.push('checked'));
    receiver.on('message.delivered', () => void ran.push('plain'));
    receiver.onAny(() => void ran.push('any'));
    const invalid: [InvalidEvent, readonly SchemaIssue[]][] = [];
    receiver.onInvalid((event, issues) => void invalid.push([event, issues]));
    const refused: unknown[] = [];
    receiver.onRefused((r) => void refused.push(r));
    const d = createTestDelivery('message.delivered', {
      secret,
      data: { to: PHONE as unknown as string },
      attempt: 2,
    });

    const res = await deliver(receiver, d);

    expect(res.status).toBe(422);
    expect(JSON.parse(res.body).error.code).toBe('payload_schema_mismatch');
    expect(JSON.parse(res.body).error.message).toContain('data.to');
    expect(ran).toEqual([]);
    expect(refused).toEqual([{ status: 422, code: 'payload_schema_mismatch' }]);
    expect(invalid).toHaveLength(1);
    const [event, issues] = invalid[0]!;
    expect(event).toEqual({ id: d.event.id, type: 'message.delivered', attempt: 2 });
    expect(issues.map((i) => i.path)).toEqual([['to']]);
    expect(Object.keys(issues[0]!).sort()).toEqual(['message', 'path']);
    expect(issues[0]!.message.length).toBeGreaterThan(0);
    for (const text of [JSON.stringify(issues), res.body, logger.text()]) {
      expect(text).not.toContain(String(PHONE));
    }
    expect(logger.text()).toContain('payload_schema_mismatch');
  });

  it('a string value the schema does not allow is cut out of the messages too', async () => {
    const logger = captureLogger();
    const receiver = createReceiver({ secret, logger });
    const issues: SchemaIssue[] = [];
    receiver.on('message.delivered', strict, () => {});
    receiver.onInvalid((_event, found) => void issues.push(...found));
    const d = createTestDelivery('message.delivered', { secret, data: { status: 'queued_by_carrier' } });

    const res = await deliver(receiver, d);

    expect(res.status).toBe(422);
    expect(issues.map((i) => i.path)).toEqual([['status']]);
    for (const text of [JSON.stringify(issues), res.body, logger.text()]) {
      expect(text).not.toContain('queued_by_carrier');
    }
  });

  it('a missing required field fails', async () => {
    const receiver = createReceiver({ secret, logger: captureLogger() });
    const issues: SchemaIssue[] = [];
    receiver.on('message.delivered', tolerant, () => {});
    receiver.onInvalid((_event, found) => void issues.push(...found));
    const d = createTestDelivery('message.delivered', { secret, data: { to: undefined } });

    expect((await deliver(receiver, d)).status).toBe(422);
    expect(issues.map((i) => i.path)).toEqual([['to']]);
  });

  it("nothing is claimed: once the schema is fixed, the service's retry of the event is handled", async () => {
    const store = new MemoryStore();
    const before = createReceiver({ secret, store, logger: captureLogger(), respond: 'after-handlers' });
    before.on('message.delivered', strict, () => {});
    const first = createTestDelivery('message.delivered', { secret, data: { status: 'queued_by_carrier' } });
    expect((await deliver(before, first)).status).toBe(422);

    // The team deploys a tolerant schema; the service sends the same event again (attempt 2).
    const after = createReceiver({ secret, store, respond: 'after-handlers' });
    const handled: string[] = [];
    after.on('message.delivered', tolerant, (event) => void handled.push(event.data.status));
    const retry = createTestDelivery('message.delivered', {
      secret,
      id: first.event.id,
      data: first.event.data,
      attempt: 2,
    });
    const res = await deliver(after, retry);

    expect(res.body).toBe('{"received":true}');
    expect(handled).toEqual(['queued_by_carrier']);
    expect((await deliver(after, retry)).body).toBe('{"received":true,"duplicate":true}');
  });
});

/** A hand-written Standard Schema (the interface is that small) that counts its calls. */
function counting<T>(
  check: (value: unknown) => T | undefined,
): StandardSchemaV1<unknown, T> & { calls: number } {
  const schema = {
    calls: 0,
    '~standard': {
      version: 1 as const,
      vendor: 'test',
      validate: (value: unknown) => {
        schema.calls++;
        const out = check(value);
        return out === undefined ? { issues: [{ message: 'rejected', path: [] }] } : { value: out };
      },
    },
  };
  return schema;
}

describe('schemas: the rules every library follows', () => {
  it('each distinct schema runs once; when any fails, no handler of the event runs', async () => {
    const receiver = createReceiver({ secret, logger: captureLogger(), respond: 'after-handlers' });
    const to = counting((d) => ({ to: (d as { to: string }).to }));
    const reject = counting(() => undefined);
    const ran: string[] = [];
    receiver.on('message.sent', to, (e) => void ran.push(`a ${e.data.to}`));
    receiver.on('message.sent', to, (e) => void ran.push(`b ${e.data.to}`));
    receiver.on('message.failed', to, () => void ran.push('failed ok'));
    receiver.on('message.failed', reject, () => void ran.push('failed rejected'));

    expect((await deliver(receiver, createTestDelivery('message.sent', { secret }))).status).toBe(200);
    expect(to.calls).toBe(1);
    expect(ran.sort()).toEqual(['a +15555550123', 'b +15555550123']);

    ran.length = 0;
    expect((await deliver(receiver, createTestDelivery('message.failed', { secret }))).status).toBe(422);
    expect(ran).toEqual([]);
  });

  it('an async schema (zod refine with a promise) is awaited', async () => {
    const receiver = createReceiver({ secret, logger: captureLogger(), respond: 'after-handlers' });
    const known = z.looseObject({
      sms_id: z.string().refine(async (id) => id.startsWith('sms_'), 'unknown send'),
    });
    const ran: string[] = [];
    receiver.on('message.sent', known, (e) => void ran.push(e.data.sms_id));

    const ok = createTestDelivery('message.sent', { secret });
    expect((await deliver(receiver, ok)).status).toBe(200);
    const bad = createTestDelivery('message.sent', { secret, data: { sms_id: 'nope_1' } });
    expect((await deliver(receiver, bad)).status).toBe(422);
    expect(ran).toEqual([ok.event.data.sms_id]);
  });

  it('a schema that throws fails the check (422), not the request', async () => {
    const receiver = createReceiver({ secret, logger: captureLogger() });
    const issues: SchemaIssue[] = [];
    const broken = z.looseObject({}).transform(() => {
      throw new Error('bug in a transform');
    });
    receiver.on('message.sent', broken, () => {});
    receiver.onInvalid((_e, found) => void issues.push(...found));

    expect((await deliver(receiver, createTestDelivery('message.sent', { secret }))).status).toBe(422);
    expect(issues).toEqual([{ path: [], message: 'the schema threw: Error: bug in a transform' }]);
  });

  it('with dispatch: checked before the hand-off; the worker runs handlers with the output', async () => {
    const queue: DispatchedEvent[] = [];
    const receiver = createReceiver({
      secret,
      logger: captureLogger(),
      dispatch: async (job) => void queue.push(job),
    }) as AdapterReceiver;
    const seen: unknown[] = [];
    receiver.on(
      'message.delivered',
      z.looseObject({ updated_at: z.iso.datetime().transform((s) => new Date(s)) }),
      (e) => void seen.push(e.data.updated_at),
    );

    const bad = createTestDelivery('message.delivered', { secret, data: { updated_at: 'yesterday' } });
    expect((await deliver(receiver, bad)).status).toBe(422);
    expect(queue).toHaveLength(0);

    const good = createTestDelivery('message.delivered', { secret });
    expect((await deliver(receiver, good)).status).toBe(200);
    expect(queue).toHaveLength(1);
    // The queue gets the event as sent (it serializes it); the worker's run checks it again.
    expect(queue[0]!.event.data).toEqual(good.event.data);
    const roundTripped = JSON.parse(JSON.stringify(queue[0]!.event));
    await receiver.runHandlers(roundTripped, queue[0]!.ctx);
    expect(seen).toEqual([new Date(good.event.data.updated_at)]);

    await expect(
      receiver.runHandlers({ ...roundTripped, data: { ...roundTripped.data, updated_at: 'yesterday' } }),
    ).rejects.toMatchObject({
      code: 'handler_failed',
      errors: [{ code: 'payload_schema_mismatch', issues: [{ path: ['updated_at'] }] }],
    });
  });

  it('off() removes a handler registered with a schema', async () => {
    const receiver = createReceiver({ secret, respond: 'after-handlers' });
    const ran: string[] = [];
    const handler = () => void ran.push('ran');
    receiver.on('message.sent', z.looseObject({}), handler);
    receiver.off('message.sent', handler);

    expect((await deliver(receiver, createTestDelivery('message.sent', { secret }))).body).toBe(
      '{"received":true,"ignored":true}',
    );
    expect(ran).toEqual([]);
  });

  it('mistakes throw at registration with ERR_SMS_OPTIONS and say what to pass', () => {
    const receiver = createReceiver({ secret });
    const call =
      (...args: unknown[]) =>
      () =>
        (receiver.on as (...a: unknown[]) => unknown)('message.sent', ...args);
    expect(call({ parse() {} }, () => {})).toThrow(
      expect.objectContaining({
        code: 'ERR_SMS_OPTIONS',
        message: expect.stringMatching(/Standard Schema v1/),
      }),
    );
    expect(call(z.object({}))).toThrow(/needs a handler after the schema/);
    expect(() => receiver.onInvalid('log' as never)).toThrow(/onInvalid\(handler\) needs a function/);
  });
});
