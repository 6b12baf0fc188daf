import { connect } from 'node:net';

/** A step of what the client does on the wire: bytes, a pause, hanging up, or half-closing (FIN). */
export type Step = string | Buffer | { pauseMs: number } | 'hang-up' | 'half-close';

export interface RawResponse {
  /** undefined when the connection closed without any response. */
  status?: number;
  headers: Record<string, string>;
  body: string;
  /** Whole bytes received, for "never echoed" checks. */
  raw: string;
  /** When the server closed the connection, in ms after the first byte was written. */
  closedAfterMs: number;
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const nl = rest.indexOf('\r\n');
    if (nl < 0) return out;
    const size = Number.parseInt(rest.slice(0, nl), 16);
    if (!(size > 0)) return out;
    out += rest.slice(nl + 2, nl + 2 + size);
    rest = rest.slice(nl + 2 + size + 2);
  }
}

function parse(raw: string, closedAfterMs: number): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (!raw.startsWith('HTTP/1.1 ') || end < 0) return { headers: {}, body: '', raw, closedAfterMs };
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.slice(end + 4);
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  return { status: Number(statusLine!.split(' ')[1]), headers, body, raw, closedAfterMs };
}

/**
 * Plays `steps` on a fresh TCP connection and collects whatever comes back until the server closes it
 * (requests are sent with `Connection: close`), the client hangs up, or `timeoutMs` runs out (then it
 * rejects: a server that neither answers nor closes is the failure these tests look for).
 */
export function rawExchange(port: number, steps: Step[], timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const started = performance.now();
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(parse(Buffer.concat(chunks).toString('latin1'), performance.now() - started));
    };
    const timer = setTimeout(
      () => finish(new Error(`no answer and no close within ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => finish());
    // A reset after the server answered (it closed while we were still writing) is a close too.
    socket.on('error', () => finish());
    socket.once('connect', async () => {
      for (const step of steps) {
        if (settled || socket.destroyed) return;
        if (step === 'hang-up') return finish();
        if (step === 'half-close') {
          socket.end();
          continue;
        }
        if (typeof step === 'object' && 'pauseMs' in step) {
          await new Promise((r) => setTimeout(r, step.pauseMs));
        } else {
          socket.write(step);
        }
      }
    });
  });
}

/** The request head, with `Connection: close` so the server hangs up after answering. */
export function head(headers: [string, string][], path = '/webhooks'): string {
  const lines = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [k, v] of headers) lines.push(`${k}: ${v}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** One request with a body of known length. */
export function request(headers: [string, string][], body: Buffer | string = ''): Step[] {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  return [head([...headers, ['Content-Length', String(bytes.length)]]), bytes];
}

/** One request with a chunked body and no Content-Length. */
export function chunked(headers: [string, string][], chunks: Buffer[]): Step[] {
  const steps: Step[] = [head([...headers, ['Transfer-Encoding', 'chunked']])];
  for (const c of chunks) steps.push(`${c.length.toString(16)}\r\n`, c, '\r\n');
  steps.push('0\r\n\r\n');
  return steps;
}
