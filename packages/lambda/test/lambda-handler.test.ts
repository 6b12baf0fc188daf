import { createReceiver, type Receiver } from '@sms-webhooks/core';
import type { ALBResult, APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type LambdaHttpEvent, lambdaHandler } from '../src/index.js';
import { albEvent, functionUrlEvent, httpApiEvent, type RequestInput, restApiEvent } from './events.js';
import { secret, signedDelivery } from './sign.js';

const quiet = { warn() {}, error() {} };

function setup(options: Parameters<typeof createReceiver>[0] = { secret }) {
  const receiver = createReceiver({ logger: quiet, ...options });
  const handled: string[] = [];
  receiver.on('message.delivered', (event) => {
    handled.push(event.id);
  });
  return { receiver, handled, handler: lambdaHandler(receiver) };
}

const SOURCES: [string, (input: RequestInput) => LambdaHttpEvent][] = [
  ['API Gateway REST API (payload 1.0)', (input) => restApiEvent(input)],
  ['API Gateway HTTP API (payload 2.0)', (input) => httpApiEvent(input)],
  ['Lambda Function URL', (input) => functionUrlEvent(input)],
  ['ALB', (input) => albEvent(input, false)],
  ['ALB with multi-value headers', (input) => albEvent(input, true)],
];

function bodyOf(result: APIGatewayProxyResult | ALBResult | object) {
  return JSON.parse((result as { body: string }).body);
}

describe.each(SOURCES)('%s', (_, makeEvent) => {
  it.each([false, true])('answers a signed delivery 200 and handles it once (base64: %s)', async (base64) => {
    const { handler, handled } = setup();
    const d = signedDelivery();
    const event = makeEvent({ headers: d.headers, body: d.body, base64 });
    const first = await handler(event);
    expect(first.statusCode).toBe(200);
    expect(bodyOf(first)).toEqual({ received: true });
    expect(handled).toEqual([d.id]);
    const again = await handler(makeEvent({ headers: d.headers, body: d.body, base64 }));
    expect(bodyOf(again)).toEqual({ received: true, duplicate: true });
    expect(handled).toEqual([d.id]);
  });

  it('refuses a forged delivery 400 signature_mismatch', async () => {
    const { handler, handled } = setup();
    const d = signedDelivery('message.delivered', 'whsec_someone_else_entirely_0123456');
    const result = await handler(makeEvent({ headers: d.headers, body: d.body }));
    expect(result.statusCode).toBe(400);
    expect(bodyOf(result).error.code).toBe('signature_mismatch');
    expect(handled).toEqual([]);
  });

  it("answers 422 payload_schema_mismatch when data fails a handler's schema, with no handler run", async () => {
    const receiver = createReceiver({ secret, logger: quiet });
    const handled: string[] = [];
    receiver.on('message.delivered', z.looseObject({ status: z.literal('sent') }), (event) => {
      handled.push(event.id);
    });
    const d = signedDelivery();
    const result = await lambdaHandler(receiver)(makeEvent({ headers: d.headers, body: d.body }));
    expect(result.statusCode).toBe(422);
    expect(bodyOf(result).error.code).toBe('payload_schema_mismatch');
    expect(handled).toEqual([]);
  });

  it('refuses a body changed after signing (the base64 flag not honoured would be this)', async () => {
    const { handler } = setup();
    const d = signedDelivery();
    const result = await handler(makeEvent({ headers: d.headers, body: d.body.replace('+1555', '+1666') }));
    expect(bodyOf(result).error.code).toBe('signature_mismatch');
  });

  it('answers a GET 405 with Allow: POST', async () => {
    const { handler } = setup();
    const result = await handler(makeEvent({ method: 'GET', headers: {}, body: '' }));
    expect(result.statusCode).toBe(405);
    const headers =
      'multiValueHeaders' in result && result.multiValueHeaders ? result.multiValueHeaders : result.headers;
    expect(String(headers?.allow)).toBe('POST');
  });

  it('answers a body over maxBodyBytes 413 before verifying it', async () => {
    const { handler } = setup({ secret, maxBodyBytes: 64 });
    const d = signedDelivery();
    const result = await handler(makeEvent({ headers: d.headers, body: d.body, base64: true }));
    expect(result.statusCode).toBe(413);
    expect(bodyOf(result).error.code).toBe('payload_too_large');
  });

  it('answers a missing signature 400 signature_missing', async () => {
    const { handler } = setup();
    const d = signedDelivery();
    const result = await handler(
      makeEvent({ headers: { 'Content-Type': 'application/json' }, body: d.body }),
    );
    expect(result.statusCode).toBe(400);
    expect(bodyOf(result).error.code).toBe('signature_missing');
  });
});

describe('headers in each source form', () => {
  it('reads REST API names in any case (X-Service-Signature as the client sent it)', async () => {
    const { handler } = setup();
    const d = signedDelivery();
    const event = restApiEvent({ headers: d.headers, body: d.body });
    expect(Object.keys(event.multiValueHeaders)).toContain('X-Service-Signature');
    expect((await handler(event)).statusCode).toBe(200);
  });

  it("passes every value of a REST API's repeated header (multiValueHeaders), not only the last", async () => {
    const { handler, handled } = setup();
    const d = signedDelivery();
    const forged = signedDelivery('message.delivered', 'whsec_someone_else_entirely_0123456');
    // `headers` keeps the last value, the valid one; `multiValueHeaders` has both, which core refuses.
    const event = restApiEvent(
      {
        headers: { ...d.headers, 'X-Service-Signature': forged.headers['X-Service-Signature']! },
        body: d.body,
      },
      { 'X-Service-Signature': [d.headers['X-Service-Signature']!] },
    );
    expect(event.headers['X-Service-Signature']).toBe(d.headers['X-Service-Signature']);
    const result = await handler(event);
    expect(result.statusCode).toBe(400);
    expect(bodyOf(result).error.code).toBe('signature_malformed');
    expect(handled).toEqual([]);
  });

  it('keeps a repeated header that is not the signature (x-forwarded-for) without refusing', async () => {
    const { handler } = setup();
    const d = signedDelivery();
    const headers = { ...d.headers, 'X-Forwarded-For': '198.51.100.1' };
    const rest = restApiEvent({ headers, body: d.body }, { 'X-Forwarded-For': ['203.0.113.9'] });
    expect((await handler(rest)).statusCode).toBe(200);
    const alb = albEvent({ headers, body: d.body }, true, { 'X-Forwarded-For': ['203.0.113.9'] });
    expect(bodyOf(await handler(alb))).toEqual({ received: true, duplicate: true });
  });

  it('answers an ALB with multi-value headers in multiValueHeaders only, with a status description', async () => {
    const { handler } = setup();
    const d = signedDelivery();
    const multi = (await handler(albEvent({ headers: d.headers, body: d.body }, true))) as ALBResult;
    expect(multi).toMatchObject({
      statusCode: 200,
      statusDescription: '200 OK',
      multiValueHeaders: { 'content-type': ['application/json; charset=utf-8'] },
      isBase64Encoded: false,
    });
    expect(multi.headers).toBeUndefined();
    const single = (await handler(albEvent({ headers: d.headers, body: d.body }, false))) as ALBResult;
    expect(single).toMatchObject({
      statusDescription: '200 OK',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(single.multiValueHeaders).toBeUndefined();
  });

  it("adds a 2.0 event's cookies back as a cookie header and reads lower-case names", async () => {
    const receiver = createReceiver({ secret, logger: quiet, respond: 'after-handlers' });
    const seen: unknown[] = [];
    receiver.onAny(() => {
      seen.push(true);
    });
    const d = signedDelivery();
    const event = httpApiEvent({ headers: d.headers, body: d.body });
    expect(event.headers['x-service-signature']).toBeDefined();
    expect((await lambdaHandler(receiver)(event)).statusCode).toBe(200);
    expect(seen).toHaveLength(1);
  });
});

describe('when the answer is returned', () => {
  function slowReceiver(respond: 'immediately' | 'after-handlers' = 'immediately') {
    const receiver = createReceiver({ secret, logger: quiet, respond });
    const state = { finished: false, release: () => {} };
    const gate = new Promise<void>((resolve) => {
      state.release = resolve;
    });
    receiver.on('message.delivered', async () => {
      await gate;
      state.finished = true;
    });
    return { receiver, state };
  }

  it("returns only after the handlers finish, in the receiver's 'immediately' mode too", async () => {
    const { receiver, state } = slowReceiver();
    const d = signedDelivery();
    let returned = false;
    const pending = lambdaHandler(receiver)(httpApiEvent({ headers: d.headers, body: d.body })).then((r) => {
      returned = true;
      return r;
    });
    // Many turns go by: the answer is held while the handler waits.
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(returned).toBe(false);
    state.release();
    const result = await pending;
    expect(state.finished).toBe(true);
    expect(result.statusCode).toBe(200);
  });

  it("returns before the handlers with answerBeforeHandlers: 'handlers-may-never-finish'", async () => {
    const { receiver, state } = slowReceiver();
    const d = signedDelivery();
    const handler = lambdaHandler(receiver, { answerBeforeHandlers: 'handlers-may-never-finish' });
    const result = await handler(httpApiEvent({ headers: d.headers, body: d.body }));
    expect(result.statusCode).toBe(200);
    expect(state.finished).toBe(false);
    state.release();
    await receiver.drain();
    expect(state.finished).toBe(true);
  });

  it('answers 503 overloaded with Retry-After past maxConcurrency and maxQueue, and takes the retry', async () => {
    const receiver = createReceiver({ secret, logger: quiet, maxConcurrency: 1, maxQueue: 0 });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const handled: string[] = [];
    receiver.on('message.delivered', async (event) => {
      await gate;
      handled.push(event.id);
    });
    const handler = lambdaHandler(receiver, { answerBeforeHandlers: 'handlers-may-never-finish' });
    const [first, second] = [signedDelivery(), signedDelivery()];
    expect((await handler(httpApiEvent({ headers: first.headers, body: first.body }))).statusCode).toBe(200);
    const refused = await handler(httpApiEvent({ headers: second.headers, body: second.body }));
    expect(refused.statusCode).toBe(503);
    expect(bodyOf(refused).error.code).toBe('overloaded');
    expect(Number(refused.headers?.['retry-after'])).toBeGreaterThan(0);
    release();
    await receiver.drain();
    expect((await handler(httpApiEvent({ headers: second.headers, body: second.body }))).statusCode).toBe(
      200,
    );
    await receiver.drain();
    expect(handled).toHaveLength(2);
  });

  it("answers 500 handler_failed in 'after-handlers' mode when a handler throws", async () => {
    const receiver = createReceiver({ secret, logger: quiet, respond: 'after-handlers' });
    receiver.on('message.delivered', () => {
      throw new Error('boom');
    });
    receiver.onError(() => {});
    const d = signedDelivery();
    const result = await lambdaHandler(receiver)(restApiEvent({ headers: d.headers, body: d.body }));
    expect(result.statusCode).toBe(500);
    expect(bodyOf(result).error.code).toBe('handler_failed');
  });
});

describe('many tenants on one route (/webhooks/sms/{tenant})', () => {
  const tenants: Record<string, string> = { acme: secret, globex: 'whsec_lambdaglobex0123456789abcdef01' };
  const withTenant = (event: LambdaHttpEvent, tenant: string): LambdaHttpEvent => {
    const path = `/webhooks/sms/${tenant}`;
    if ('rawPath' in event) return { ...event, rawPath: path, pathParameters: { tenant } };
    return { ...event, path, pathParameters: { tenant } } as LambdaHttpEvent;
  };

  it.each([
    ['API Gateway REST API (payload 1.0)', restApiEvent],
    ['API Gateway HTTP API (payload 2.0)', httpApiEvent],
  ] as const)(
    '%s: hands pathParameters to the secret function, and ctx.tenant to handlers',
    async (_, make) => {
      const receiver = createReceiver({ secret: ({ tenant }) => tenants[tenant], logger: quiet });
      const seen: string[] = [];
      receiver.on('message.delivered', (_event, ctx) => void seen.push(ctx.tenant!));
      const handler = lambdaHandler(receiver);
      const d = signedDelivery('message.delivered', tenants.globex);
      const globex = await handler(withTenant(make({ headers: d.headers, body: d.body }), 'globex'));
      expect(globex.statusCode).toBe(200);
      expect(seen).toEqual(['globex']);
      const wrong = await handler(withTenant(make({ headers: d.headers, body: d.body }), 'acme'));
      expect(bodyOf(wrong).error.code).toBe('signature_mismatch');
      const unknown = await handler(withTenant(make({ headers: d.headers, body: d.body }), 'initech'));
      expect(unknown.statusCode).toBe(404);
      expect(bodyOf(unknown).error.code).toBe('unknown_tenant');
    },
  );

  it('ALB (no path parameters): a tenant function reads it from the path', async () => {
    const receiver = createReceiver({
      secret: ({ tenant }) => tenants[tenant],
      tenant: ({ path }) => path?.split('/')[3],
      logger: quiet,
    });
    const d = signedDelivery('message.delivered', tenants.acme);
    const event = { ...albEvent({ headers: d.headers, body: d.body }, false), path: '/webhooks/sms/acme' };
    expect((await lambdaHandler(receiver)(event)).statusCode).toBe(200);
  });
});

describe('start-up checks', () => {
  it('refuses something that is not a receiver', () => {
    expect(() => lambdaHandler({} as Receiver)).toThrow(
      /@sms-webhooks\/lambda: lambdaHandler\(receiver\) needs a receiver/,
    );
  });

  it('refuses an answerBeforeHandlers value other than the spelled-out one, with a stable code', () => {
    const { receiver } = setup();
    const call = () => lambdaHandler(receiver, { answerBeforeHandlers: true as never });
    expect(call).toThrow(/answerBeforeHandlers must be 'handlers-may-never-finish'/);
    expect(call).toThrow(expect.objectContaining({ code: 'ERR_SMS_LAMBDA_OPTIONS' }));
  });
});
