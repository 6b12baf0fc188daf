import { createTestDelivery, signPayload } from '@sms-webhooks/core';
import { expect } from 'vitest';
import { chunked, head, type RawResponse, request, type Step } from './raw-http.js';

export const SECRET = 'whsec_bad_inputs_0123456789abcdefABCDEF';
/** The receiver's body limit in these tests. */
export const MAX_BODY = 64 * 1024;
/** Short, so a trickling client is cut off quickly by the adapters themselves. */
export const BODY_TIMEOUT_MS = 1_000;

type Headers = [string, string][];

const sign = (body: Buffer | string, t?: number) => signPayload(body, SECRET, { timestamp: t });
const json = ['Content-Type', 'application/json'] as [string, string];
const signed = (body: Buffer | string, extra: Headers = [json]): Step[] =>
  request([['X-Service-Signature', sign(body)], ...extra], body);

/** A fresh, correctly signed event body. */
const eventBody = () => Buffer.from(createTestDelivery('message.delivered', { secret: SECRET }).body);
const eventObject = () => JSON.parse(createTestDelivery('message.delivered', { secret: SECRET }).body);

export type Outcome =
  /** The receiver's coded JSON error. */
  | { status: number; code: string }
  /** Node's HTTP parser answered before any of our code ran: a bare status, then it closes. */
  | { node: number }
  /** Correctly signed and well-formed: 200, handler runs exactly once. */
  | { accepted: true }
  /** The client went away: nothing to answer; no handler call and the server goes on. */
  | { clientGone: true }
  /** The body ended early: closed without an answer, or a 400 (from Node or the adapter). */
  | { cutShort: true }
  /** The framework refused it before the adapter ran, in its own error shape. */
  | { framework: number; frameworkCode: string };

export interface BadInput {
  name: string;
  steps(): Step[];
  outcome: Outcome;
  /** Where an adapter's framework answers differently (documented in the README table). */
  outcomeFor?: Record<string, Outcome>;
  /** How long the exchange may take before it counts as a hang. */
  timeoutMs?: number;
}

/** Checks one exchange against its outcome (handler calls are checked by the caller). */
export function checkOutcome(res: RawResponse, outcome: Outcome): void {
  if ('code' in outcome) {
    expect({ status: res.status, code: JSON.parse(res.body || '{}').error?.code }).toEqual({
      status: outcome.status,
      code: outcome.code,
    });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  } else if ('node' in outcome) {
    expect(res.status).toBe(outcome.node);
  } else if ('accepted' in outcome) {
    expect({ status: res.status, body: JSON.parse(res.body || '{}') }).toEqual({
      status: 200,
      body: { received: true },
    });
  } else if ('framework' in outcome) {
    expect({ status: res.status, code: JSON.parse(res.body || '{}').code }).toEqual({
      status: outcome.framework,
      code: outcome.frameworkCode,
    });
  } else if ('cutShort' in outcome) {
    expect([400, undefined]).toContain(res.status);
  } else {
    expect(res.status).toBeUndefined();
  }
}

export function handlerCalls(outcome: Outcome): number {
  return 'accepted' in outcome ? 1 : 0;
}

const thousandShortV1 = () => `t=${Math.floor(Date.now() / 1000)},${Array(1000).fill('v1=00').join(',')}`;
const thousandFullV1 = () =>
  `t=${Math.floor(Date.now() / 1000)},${Array(1000)
    .fill(`v1=${'a'.repeat(64)}`)
    .join(',')}`;

export const BAD_INPUTS: BadInput[] = [
  {
    name: 'empty body, no signature',
    steps: () => request([json]),
    outcome: { status: 400, code: 'signature_missing' },
  },
  { name: 'empty body, signed', steps: () => signed(''), outcome: { status: 400, code: 'payload_invalid' } },
  { name: '`null`, signed', steps: () => signed('null'), outcome: { status: 400, code: 'payload_invalid' } },
  { name: '`[]`, signed', steps: () => signed('[]'), outcome: { status: 400, code: 'payload_invalid' } },
  {
    name: 'an array holding a valid event, signed',
    steps: () => signed(`[${eventBody()}]`),
    outcome: { status: 400, code: 'payload_invalid' },
  },
  {
    name: 'invalid UTF-8 inside a string, signed',
    steps: () => {
      const e = eventBody();
      const at = e.indexOf('+15555550123');
      return signed(Buffer.concat([e.subarray(0, at), Buffer.from([0xff, 0xfe, 0xc3]), e.subarray(at)]));
    },
    outcome: { status: 400, code: 'payload_invalid' },
  },
  {
    name: 'invalid UTF-8, signature of other bytes',
    steps: () => request([['X-Service-Signature', sign(eventBody())], json], Buffer.from([0xc3, 0x28, 0xff])),
    outcome: { status: 400, code: 'signature_mismatch' },
  },
  {
    name: 'UTF-8 BOM before a valid event, signed with the BOM',
    steps: () => signed(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), eventBody()])),
    outcome: { status: 400, code: 'payload_invalid' },
  },
  {
    name: 'UTF-8 BOM added to a body signed without it',
    steps: () => {
      const e = eventBody();
      return request(
        [['X-Service-Signature', sign(e)], json],
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), e]),
      );
    },
    outcome: { status: 400, code: 'signature_mismatch' },
  },
  {
    name: 'envelope fields only under `__proto__`, signed',
    steps: () => signed(`{"__proto__":${JSON.stringify(eventObject())}}`),
    outcome: { status: 400, code: 'payload_invalid' },
  },
  {
    name: 'envelope fields only under `constructor.prototype`, signed',
    steps: () => signed(JSON.stringify({ constructor: { prototype: eventObject() } })),
    outcome: { status: 400, code: 'payload_invalid' },
  },
  {
    name: '`__proto__` and `constructor` keys inside a valid event, signed',
    steps: () => {
      const text = eventBody()
        .toString()
        .replace(
          '"data":{',
          '"data":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},',
        );
      return signed(text);
    },
    outcome: { accepted: true },
  },
  {
    name: '1,000 short `v1` entries (6 KB header)',
    steps: () => request([['X-Service-Signature', thousandShortV1()], json], eventBody()),
    outcome: { status: 400, code: 'signature_malformed' },
  },
  {
    name: '1,000 full `v1` entries (68 KB header)',
    steps: () => request([['X-Service-Signature', thousandFullV1()], json], eventBody()),
    outcome: { node: 431 },
  },
  {
    name: '17 well-formed `v1` entries (limit is 16)',
    steps: () => {
      const body = eventBody();
      const good = sign(body);
      return request([['X-Service-Signature', `${good}${`,v1=${'b'.repeat(64)}`.repeat(16)}`], json], body);
    },
    outcome: { status: 400, code: 'signature_malformed' },
  },
  {
    name: '10 KB signature header',
    steps: () => request([['X-Service-Signature', `t=1,v1=${'c'.repeat(10_000)}`], json], eventBody()),
    outcome: { status: 400, code: 'signature_malformed' },
  },
  {
    name: '100 KB signature header',
    steps: () => request([['X-Service-Signature', `t=1,v1=${'c'.repeat(100_000)}`], json], eventBody()),
    outcome: { node: 431 },
  },
  {
    name: 'signature header sent twice (same valid value)',
    steps: () => {
      const body = eventBody();
      const s = sign(body);
      return request([['X-Service-Signature', s], ['X-Service-Signature', s], json], body);
    },
    outcome: { status: 400, code: 'signature_malformed' },
  },
  {
    name: 'event-id header sent twice (valid, then another id)',
    steps: () => {
      const body = eventBody();
      const id = JSON.parse(body.toString()).id;
      return signed(body, [json, ['X-Service-Event-Id', id], ['X-Service-Event-Id', 'evt_other']]);
    },
    outcome: { status: 400, code: 'header_mismatch' },
  },
  {
    name: 'Content-Length sent twice, different values',
    steps: () => {
      const body = eventBody();
      return [
        head([
          ['X-Service-Signature', sign(body)],
          json,
          ['Content-Length', String(body.length)],
          ['Content-Length', '3'],
        ]),
        body,
      ];
    },
    outcome: { node: 400 },
  },
  {
    name: 'Content-Length and Transfer-Encoding together (smuggling shape)',
    steps: () => {
      const body = eventBody();
      return [
        head([
          ['X-Service-Signature', sign(body)],
          json,
          ['Content-Length', String(body.length)],
          ['Transfer-Encoding', 'chunked'],
        ]),
        `${body.length.toString(16)}\r\n`,
        body,
        '\r\n0\r\n\r\n',
      ];
    },
    outcome: { node: 400 },
  },
  { name: 'no Content-Type, signed', steps: () => signed(eventBody(), []), outcome: { accepted: true } },
  {
    name: 'no Content-Type, unsigned',
    steps: () => request([], eventBody()),
    outcome: { status: 400, code: 'signature_missing' },
  },
  {
    name: 'Content-Type text/plain, signed',
    steps: () => signed(eventBody(), [['Content-Type', 'text/plain']]),
    outcome: { accepted: true },
  },
  {
    name: 'Content-Type multipart/form-data, signed',
    steps: () => signed(eventBody(), [['Content-Type', 'multipart/form-data; boundary=x']]),
    outcome: { accepted: true },
  },
  {
    name: 'Content-Type application/x-www-form-urlencoded, wrong signature',
    steps: () =>
      request(
        [
          ['X-Service-Signature', sign('other')],
          ['Content-Type', 'application/x-www-form-urlencoded'],
        ],
        'a=1&b=2',
      ),
    outcome: { status: 400, code: 'signature_mismatch' },
  },
  {
    name: 'Content-Type with a junk value, signed',
    steps: () => signed(eventBody(), [['Content-Type', ';;;==/"unterminated']]),
    outcome: { accepted: true },
    // Fastify 5 parses the media type before any content-type parser, so the catch-all one never sees it.
    outcomeFor: { 'fastify 5': { framework: 415, frameworkCode: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' } },
  },
  {
    name: 'a control character in a header value',
    steps: () => signed(eventBody(), [['Content-Type', 'application/json\u0001']]),
    outcome: { node: 400 },
  },
  {
    name: 'chunked body, no length, signed',
    steps: () => {
      const body = eventBody();
      return chunked(
        [['X-Service-Signature', sign(body)], json],
        [body.subarray(0, 10), body.subarray(10, 200), body.subarray(200)],
      );
    },
    outcome: { accepted: true },
  },
  {
    name: 'chunked body, no length, unsigned',
    steps: () => chunked([json], [eventBody()]),
    outcome: { status: 400, code: 'signature_missing' },
  },
  {
    name: 'chunked body past the limit',
    steps: () =>
      chunked([['X-Service-Signature', sign('x')], json], Array(20).fill(Buffer.alloc(8 * 1024, 0x20))),
    outcome: { status: 413, code: 'payload_too_large' },
  },
  {
    name: 'declared Content-Length past the limit (body never sent)',
    steps: () => [head([['X-Service-Signature', sign('x')], json, ['Content-Length', String(MAX_BODY + 1)]])],
    outcome: { status: 413, code: 'payload_too_large' },
  },
  {
    name: 'a client that trickles its body (1 byte / 250 ms)',
    steps: () => {
      const body = eventBody();
      const steps: Step[] = [
        head([['X-Service-Signature', sign(body)], json, ['Content-Length', String(body.length)]]),
      ];
      for (const byte of body) steps.push(Buffer.from([byte]), { pauseMs: 250 });
      return steps;
    },
    outcome: { status: 408, code: 'request_timeout' },
    timeoutMs: 8_000,
  },
  {
    name: 'a client that disconnects mid-body',
    steps: () => {
      const body = eventBody();
      return [
        head([['X-Service-Signature', sign(body)], json, ['Content-Length', String(body.length)]]),
        body.subarray(0, 100),
        { pauseMs: 100 },
        'hang-up',
      ];
    },
    outcome: { clientGone: true },
  },
  {
    name: 'a body shorter than its Content-Length, then the client half-closes',
    steps: () => {
      const body = eventBody();
      return [
        head([['X-Service-Signature', sign(body)], json, ['Content-Length', String(body.length + 50)]]),
        body,
        'half-close',
      ];
    },
    outcome: { cutShort: true },
  },
];
