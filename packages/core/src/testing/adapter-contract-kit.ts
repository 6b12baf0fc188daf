import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import type { Logger } from '../base/logger.js';
import { createReceiver } from '../receiver/create-receiver.js';
import type { Receiver } from '../receiver/receiver.js';
import type { ReceiverOptions } from '../receiver/receiver-options.js';
import { signPayload } from '../verify/sign-payload.js';
import type { AdapterContractOptions, AdapterHarness } from './adapter-harness.js';
import type { TestApi } from './test-api.js';

// What the adapter contract's rows share: the secrets and limits, a client with control over the bytes on
// the wire, the assertions on an answer, and a server around a fresh receiver.

export const SECRET = 'whsec_adaptercontract0123456789abcdef';
export const OTHER_SECRET = 'whsec_someoneelse0123456789abcdef01';
/** The tenants of the row on route parameters, each with its own secret; `acme` is rotating to a second. */
export const TENANT_SECRETS: Record<string, string[]> = {
  acme: ['whsec_tenantacme0123456789abcdef0123', SECRET],
  globex: ['whsec_tenantglobex0123456789abcdef01'],
};
export const LIMIT = 4096;
const TIMEOUT_MS = 5000;

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

interface RawRequest {
  method?: string;
  headers?: Record<string, string | number>;
  /** Written one by one; the request is ended only when `end` is not false. */
  chunks?: (string | Buffer)[];
  end?: boolean;
  /** Written, and the request ended, only once `after` resolves (instead of `end`). */
  rest?: { after: Promise<unknown>; chunk: string | Buffer };
  /** How long to wait for the answer. Default TIMEOUT_MS. */
  timeoutMs?: number;
}

export function defer<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Rejects instead of hanging, so a stuck adapter fails the test with a clear message. */
export function within<T>(promise: Promise<T>, what: string, ms = TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * node:http rather than fetch where the test needs control over the bytes on the wire: no
 * content-type, a declared length that is never sent, a chunked body that is never ended.
 */
export function send(url: string, options: RawRequest = {}): Promise<Reply> {
  const answer = new Promise<Reply>((resolve, reject) => {
    const req = httpRequest(url, {
      method: options.method ?? 'POST',
      headers: options.headers,
      agent: false,
    });
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString() });
        req.destroy();
      });
      res.on('error', reject);
    });
    // The server may close the socket after answering early (413); only a missing answer is a failure.
    req.on('error', (error) => setTimeout(() => reject(error), 200));
    for (const chunk of options.chunks ?? []) req.write(chunk);
    const { rest } = options;
    if (rest) rest.after.then(() => req.end(rest.chunk));
    else if (options.end !== false) req.end();
  });
  return within(answer, `${options.method ?? 'POST'} ${url}`, options.timeoutMs);
}

function dechunk(headers: IncomingHttpHeaders, body: string): string {
  if (headers['transfer-encoding'] !== 'chunked') return body;
  let text = '';
  for (let at = 0; ; ) {
    const eol = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.slice(at, eol), 16);
    if (!(size > 0)) return text;
    text += body.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

/**
 * A client that writes its whole request before it reads a byte of the answer, as blocking clients
 * (Python's requests, curl without expect) do. If the server closes while it still writes, the reset
 * destroys the answer waiting unread: this client then sees an error instead of the status.
 */
export function writeAllThenRead(
  url: string,
  head: Record<string, string | number>,
  body: Buffer,
): Promise<Reply> {
  const { hostname, port, pathname } = new URL(url);
  const answer = new Promise<Reply>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    socket.pause();
    const lines = Object.entries(head).map(([k, v]) => `${k}: ${v}`);
    socket.write(`POST ${pathname} HTTP/1.1\r\nhost: ${hostname}\r\n${lines.join('\r\n')}\r\n\r\n`);
    socket.write(body, () => socket.resume());
    const parts: Buffer[] = [];
    socket.on('data', (c: Buffer) => parts.push(c));
    socket.on('error', (error) => reject(new Error(`the answer was lost: ${error.message}`)));
    socket.on('end', () => {
      socket.destroy();
      const text = Buffer.concat(parts).toString('latin1');
      const [top = '', rest = ''] = text.split('\r\n\r\n', 2);
      const headers: IncomingHttpHeaders = {};
      for (const line of top.split('\r\n').slice(1)) {
        const at = line.indexOf(':');
        headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({ status: Number(top.split(' ')[1]), headers, text: dechunk(headers, rest) });
    });
  });
  return within(answer, `POST ${url} (written whole, then read)`);
}

export function post(url: string, delivery: { body: string | Buffer; headers: Record<string, string> }) {
  return send(url, { headers: delivery.headers, chunks: [delivery.body] });
}

function errorCode(reply: Reply): string | undefined {
  try {
    return (JSON.parse(reply.text) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

export function assertJson(reply: Reply, status: number, body: object): void {
  assert.equal(reply.status, status, `status (body: ${reply.text})`);
  assert.match(String(reply.headers['content-type']), /application\/json/);
  assert.deepEqual(JSON.parse(reply.text), body);
}

export function assertError(reply: Reply, status: number, code: string): void {
  assert.equal(reply.status, status, `status (body: ${reply.text})`);
  assert.match(String(reply.headers['content-type']), /application\/json/);
  assert.equal(errorCode(reply), code, reply.text);
  assert.ok(!reply.text.includes(SECRET), 'an error body never holds the secret');
}

export function quietLogger(): QuietLogger {
  const lines: string[] = [];
  const keep = (...args: unknown[]) => lines.push(args.map(String).join(' '));
  return { lines, warn: keep, error: keep };
}

export function signed(body: string, extra: Record<string, string> = {}, secret = SECRET) {
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-service-signature': signPayload(body, secret),
      ...extra,
    },
  };
}

type QuietLogger = Logger & { lines: string[] };

/** Starts the adapter around a fresh receiver, runs `fn`, then always closes the server. */
type WithServer = (
  options: Partial<ReceiverOptions>,
  setup: (receiver: Receiver) => void,
  fn: (url: string, receiver: Receiver, logger: QuietLogger) => Promise<void>,
) => Promise<void>;

/** What each group of rows is given: the runner's `it`, a server around a fresh receiver, and the harness. */
export interface ContractRows {
  it: TestApi['it'];
  withServer: WithServer;
  harness: AdapterHarness;
  /** Where the harness mounts the webhook. */
  path: string;
  options: AdapterContractOptions | undefined;
}

export function contractRows(
  it: TestApi['it'],
  harness: AdapterHarness,
  api?: AdapterContractOptions,
): ContractRows {
  const path = api?.path ?? '/webhooks/sms';
  const withServer: WithServer = async (options, setup, fn) => {
    const logger = quietLogger();
    const receiver = createReceiver({ secret: SECRET, maxBodyBytes: LIMIT, logger, ...options });
    setup(receiver);
    const server = await harness.start(receiver, { path });
    try {
      await fn(server.url, receiver, logger);
      await within(receiver.drain(), 'receiver.drain()');
      for (const line of logger.lines) assert.ok(!line.includes(SECRET), 'no log line holds the secret');
    } finally {
      await within(server.close(), 'server.close()');
    }
  };
  return { it, withServer, harness, path, options: api };
}
