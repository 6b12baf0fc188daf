import { createHmac } from 'node:crypto';
import { EVENT_TYPES } from '@sms-webhooks/core';
import fc from 'fast-check';

/** A fixed "now" (unix seconds) so timestamps are reproducible from a fast-check seed. */
export const NOW = 1_800_000_000;
export const TOLERANCE = 300;

export const SIGNATURE = 'x-service-signature';
export const EVENT_ID = 'x-service-event-id';
export const EVENT_TYPE = 'x-service-event-type';

const HEX = '0123456789abcdef'.split('');
const ID_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'.split('');

export const hex = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...HEX), minLength: min, maxLength: max });
export const hex64 = hex(64, 64);

/** Realistic secrets: `whsec_` and printable ASCII, never padded with whitespace (createReceiver refuses that). */
export const secretArb = fc
  .string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 80 })
  .map((s) => `whsec_${s}`)
  .filter((s) => s.trim() === s);

export function expectedSignature(secret: string, t: string, body: string | Uint8Array): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}

/** A header name written in random case, as proxies and hand-built records may. */
export const anyCase = (name: string) => fc.mixedCase(fc.constant(name));

/** An event envelope as the spec shapes it, with random contents. */
export const eventArb = fc.record(
  {
    id: fc.string({ unit: fc.constantFrom(...ID_CHARS), minLength: 1, maxLength: 40 }).map((s) => `evt_${s}`),
    object: fc.constant('event'),
    type: fc.oneof(
      fc.constantFrom(...EVENT_TYPES),
      fc.stringMatching(/^[a-z]{1,10}\.[a-z_]{1,12}$/), // a type a future service version may add
    ),
    api_version: fc.constant('v1'),
    created_at: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    test: fc.boolean(),
    data: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }),
  },
  { noNullPrototype: true },
);

/** How the body is serialised and handed over: the verifier must take all of these as the same bytes. */
export const bodyFormArb = fc.record({
  indent: fc.constantFrom(undefined, 0, 1, 2, '\t'),
  as: fc.constantFrom('string', 'buffer', 'uint8array'),
});

export function toBodyForm(text: string, as: string): string | Uint8Array {
  if (as === 'string') return text;
  const buffer = Buffer.from(text, 'utf8');
  return as === 'buffer' ? buffer : new Uint8Array(buffer);
}

export function bodyBytes(body: string | Uint8Array): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
}

/** Items a signature header may hold: well-formed, near-misses and garbage. */
const signatureItemArb = fc.oneof(
  fc.nat({ max: 4_000_000_000 }).map((n) => `t=${n}`),
  fc.integer({ min: NOW - 400, max: NOW + 400 }).map((n) => `t=${n}`),
  hex64.map((h) => `v1=${h}`),
  hex(0, 80).map((h) => `v1=${h}`),
  hex64.map((h) => `v0=${h}`),
  fc.string({ maxLength: 20 }).map((s) => `v1=${s}`),
  fc.string({ maxLength: 20 }).map((s) => `t=${s}`),
  fc.string({ maxLength: 30 }),
  fc.constantFrom('', ' ', '=', ',', 't', 'v1', '==', 't==1', 'v1=,', '\t'),
);

/** Signature header values: structured near-misses, lists of them, and raw noise (including very long). */
export const signatureValueArb: fc.Arbitrary<string | string[]> = fc.oneof(
  fc
    .array(signatureItemArb, { maxLength: 24 })
    .chain((items) => fc.constantFrom(',', ', ', ' ,', ';', ',,').map((sep) => items.join(sep))),
  fc.array(
    fc.array(signatureItemArb, { maxLength: 4 }).map((i) => i.join(',')),
    {
      minLength: 2,
      maxLength: 4,
    },
  ),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constantFrom(1, 20, 300, 5000).map((n) => `t=${NOW},${'v1='.padEnd(67, 'a')},`.repeat(n)),
);

/** Bodies: random bytes and text, arbitrary JSON, and envelopes close to a real event. */
export const bodyArb: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? ''),
  eventArb.map((e) => JSON.stringify(e)),
  fc.constantFrom('', 'null', '[]', '{}', '\uFEFF{}', '{"__proto__":{"x":1}}', '{"constructor":{}}'),
);

/** A whole header set: the signature header (maybe repeated, maybe in odd case) among random others. */
export const headerSetArb: fc.Arbitrary<Record<string, string | string[]>> = fc
  .tuple(
    fc.option(fc.tuple(anyCase(SIGNATURE), signatureValueArb), { nil: undefined }),
    fc.option(fc.tuple(anyCase(EVENT_ID), fc.string({ maxLength: 40 })), { nil: undefined }),
    fc.option(fc.tuple(anyCase(EVENT_TYPE), fc.string({ maxLength: 30 })), { nil: undefined }),
    fc.dictionary(
      fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom('__proto__', 'constructor')),
      fc.oneof(fc.string({ maxLength: 40 }), fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 })),
      { maxKeys: 6, noNullPrototype: true },
    ),
  )
  .map(([sig, id, type, rest]) => {
    const headers: Record<string, string | string[]> = Object.create(null);
    for (const [k, v] of Object.entries(rest)) headers[k] = v;
    for (const pair of [sig, id, type]) if (pair) headers[pair[0]] = pair[1];
    return headers;
  });

export interface Delivery {
  body: string | Uint8Array;
  /** The JSON text that was signed. */
  text: string;
  headers: Record<string, string | string[]> | Headers;
  /** Secrets the receiver is configured with; `signer` is among them. */
  secrets: string[];
  signer: string;
  t: string;
  event: Record<string, unknown>;
}

const spaces = fc.constantFrom('', ' ', '  ', '\t');

function buildHeaders(
  parts: { name: string; value: string | string[] }[],
  as: 'record' | 'headers',
): Record<string, string | string[]> | Headers {
  if (as === 'headers') {
    const h = new Headers();
    for (const { name, value } of parts) {
      for (const v of typeof value === 'string' ? [value] : value) h.append(name, v);
    }
    return h;
  }
  const record: Record<string, string | string[]> = {};
  for (const { name, value } of parts) record[name] = value;
  return record;
}

/**
 * A correctly signed delivery around `now`, varied in every way that must not matter: JSON spacing,
 * body type, header-name case, decoy and unknown-scheme signatures in any order, whitespace around
 * items, a header split in two, Node records or Fetch `Headers`, several configured secrets.
 */
export function signedDeliveryArb(now: number, maxOffset: number): fc.Arbitrary<Delivery> {
  return fc
    .record({
      event: eventArb,
      form: bodyFormArb,
      secrets: fc.uniqueArray(secretArb, { minLength: 1, maxLength: 3 }),
      signerPick: fc.nat(),
      offset: fc.integer({ min: -maxOffset, max: maxOffset }),
      decoys: fc.array(hex64, { maxLength: 3 }),
      unknown: fc.array(fc.string({ unit: fc.constantFrom(...HEX), maxLength: 10 }), { maxLength: 2 }),
      order: fc.nat(),
      pads: fc.array(fc.tuple(spaces, spaces), { minLength: 8, maxLength: 8 }),
      split: fc.boolean(),
      withId: fc.boolean(),
      withType: fc.boolean(),
      sigName: anyCase(SIGNATURE),
      idName: anyCase(EVENT_ID),
      typeName: anyCase(EVENT_TYPE),
      headersAs: fc.constantFrom('record', 'headers') as fc.Arbitrary<'record' | 'headers'>,
    })
    .map((r) => {
      const text = JSON.stringify(r.event, null, r.form.indent);
      const signer = r.secrets[r.signerPick % r.secrets.length]!;
      const t = String(now + r.offset);
      const items = [
        ...r.decoys.map((d) => `v1=${d}`),
        ...r.unknown.map((u) => `v0=${u}`),
        `v1=${expectedSignature(signer, t, text)}`,
      ];
      // Rotate the real signature to any position; t goes first or last, as real senders vary.
      const k = r.order % items.length;
      const rotated = [...items.slice(k), ...items.slice(0, k)];
      const all = r.order % 2 === 0 ? [`t=${t}`, ...rotated] : [...rotated, `t=${t}`];
      const padded = all.map((item, i) => {
        const [a, b] = r.pads[i % r.pads.length]!;
        const eq = item.indexOf('=');
        return `${a}${item.slice(0, eq)}${b}=${b}${item.slice(eq + 1)}${a}`;
      });
      const half = Math.ceil(padded.length / 2);
      const value =
        r.split && padded.length > 1
          ? [padded.slice(0, half).join(','), padded.slice(half).join(',')]
          : padded.join(',');
      const parts: { name: string; value: string | string[] }[] = [{ name: r.sigName, value }];
      if (r.withId) parts.push({ name: r.idName, value: String(r.event.id) });
      if (r.withType) parts.push({ name: r.typeName, value: String(r.event.type) });
      return {
        body: toBodyForm(text, r.form.as),
        text,
        headers: buildHeaders(parts, r.headersAs),
        secrets: r.secrets,
        signer,
        t,
        event: r.event as Record<string, unknown>,
      };
    });
}

/** One tampering, and the only code the verifier may answer it with. */
export interface Tampered {
  kind: string;
  body: string | Uint8Array;
  headers: Record<string, string | string[]>;
  secrets: string[];
  expected:
    | 'signature_mismatch'
    | 'signature_malformed'
    | 'signature_missing'
    | 'timestamp_out_of_tolerance'
    | 'header_mismatch';
  /** The signature the verifier computes for this body and t (for "never echoed" checks). */
  t: string;
}

const MUTATIONS = [
  'flip-body-bit',
  'insert-byte',
  'delete-byte',
  'append-whitespace',
  'reserialise',
  't-other',
  't-leading-zero',
  't-outside',
  'v1-nibble',
  'v1-drop',
  'v1-truncate',
  'wrong-secret',
  'stale-but-signed',
  'no-header',
  'id-header',
  'type-header',
] as const;

/** A correctly signed delivery (plain record headers) with exactly one thing tampered with. */
export function tamperedArb(now: number, maxOffset: number, margin: number): fc.Arbitrary<Tampered> {
  return fc
    .record({
      event: eventArb,
      indent: fc.constantFrom(undefined, 2),
      secret: secretArb,
      others: fc.uniqueArray(secretArb, { minLength: 1, maxLength: 3 }),
      offset: fc.integer({ min: -maxOffset, max: maxOffset }),
      decoys: fc.array(hex64, { maxLength: 2 }),
      kind: fc.constantFrom(...MUTATIONS),
      pos: fc.nat(),
      bit: fc.integer({ min: 0, max: 7 }),
      byte: fc.integer({ min: 0, max: 255 }),
      far: fc.integer({ min: maxOffset + margin, max: 10_000_000 }),
      sign: fc.constantFrom(-1, 1),
      nibble: fc.integer({ min: 1, max: 15 }),
      otherId: fc.string({ unit: fc.constantFrom(...ID_CHARS), minLength: 1, maxLength: 20 }),
    })
    .map((r): Tampered => {
      const text = JSON.stringify(r.event, null, r.indent);
      let body: string | Uint8Array = text;
      let t = String(now + r.offset);
      let secrets = [r.secret];
      let expected: Tampered['expected'] = 'signature_mismatch';
      const others = r.others.filter((o) => Buffer.compare(Buffer.from(o), Buffer.from(r.secret)) !== 0);
      if (r.kind === 'stale-but-signed') {
        t = String(now + r.sign * r.far);
        expected = 'timestamp_out_of_tolerance';
      }
      let v1 = expectedSignature(r.secret, t, text);
      let sigT = t;
      const headers: Record<string, string | string[]> = {
        [EVENT_ID]: String(r.event.id),
        [EVENT_TYPE]: String(r.event.type),
      };
      const bytes = Buffer.from(text, 'utf8');
      const at = r.pos % bytes.length;
      switch (r.kind) {
        case 'flip-body-bit':
          bytes[at] = bytes[at]! ^ (1 << r.bit);
          body = bytes;
          break;
        case 'insert-byte':
          body = Buffer.concat([bytes.subarray(0, at), Buffer.from([r.byte]), bytes.subarray(at)]);
          break;
        case 'delete-byte':
          body = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
          break;
        case 'append-whitespace':
          body = `${text}\n`;
          break;
        case 'reserialise':
          body = JSON.stringify(JSON.parse(text), null, r.indent === undefined ? 1 : undefined);
          break;
        case 't-other':
          sigT = String(now + r.offset + (r.offset > 0 ? -1 - (r.pos % 5) : 1 + (r.pos % 5)));
          break;
        case 't-leading-zero':
          sigT = `0${t}`;
          break;
        case 't-outside':
          sigT = String(now + r.sign * r.far);
          expected = 'timestamp_out_of_tolerance';
          break;
        case 'v1-nibble': {
          const i = r.pos % 64;
          const changed = ((Number.parseInt(v1[i]!, 16) + r.nibble) % 16).toString(16);
          v1 = v1.slice(0, i) + changed + v1.slice(i + 1);
          break;
        }
        case 'v1-drop':
          expected = r.decoys.length > 0 ? 'signature_mismatch' : 'signature_malformed';
          break;
        case 'v1-truncate':
          v1 = v1.slice(0, r.pos % 64);
          expected = 'signature_malformed';
          break;
        case 'wrong-secret':
          secrets = others.length > 0 ? others : [`${r.secret}x`];
          break;
        case 'no-header':
          expected = 'signature_missing';
          break;
        case 'id-header':
          headers[EVENT_ID] = `${String(r.event.id)}_${r.otherId}`;
          expected = 'header_mismatch';
          break;
        case 'type-header':
          headers[EVENT_TYPE] = `${String(r.event.type)}.x`;
          expected = 'header_mismatch';
          break;
      }
      const v1s = [...r.decoys.map((d) => `v1=${d}`), ...(r.kind === 'v1-drop' ? [] : [`v1=${v1}`])];
      if (r.kind !== 'no-header') headers[SIGNATURE] = [`t=${sigT}`, ...v1s].join(',');
      return { kind: r.kind, body, headers, secrets, expected, t: sigT };
    });
}
