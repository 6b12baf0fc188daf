/**
 * The load generator, in its own process so it never shares a core's time slices with the server's
 * event loop: `node --import tsx load-runner.ts`. Receives { type: 'run', ... } over IPC, signs a
 * fresh pool of deliveries (outside the timed part), fires them with autocannon, answers 'result'.
 */
import autocannon from 'autocannon';
import { signedRequests } from '../lib/fixtures.js';

export interface LoadRequest {
  type: 'run';
  url: string;
  /** Requests in this run; each carries its own, never reused, event id. */
  amount: number;
  connections: number;
  bodyBytes: number;
}

export interface LoadResult {
  type: 'result';
  /** Set when the run itself failed (bad URL, autocannon error). */
  error?: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** The codes (or messages) of those errors, each once. */
  errorCodes?: string[];
  timeouts: number;
  /** Requests sent after the pool ran out (they repeat an id): must be 0 for a fair run. */
  reused: number;
}

async function run(message: LoadRequest): Promise<LoadResult> {
  // Each connection builds one request up front, and a few more may be in flight at the end.
  const pool = signedRequests(message.amount + message.connections * 2 + 16, message.bodyBytes).map(
    ({ body, headers: { host, 'content-length': length, ...headers } }) => ({ body, headers }),
  );
  let next = 0;
  let reused = 0;
  let first = 0;
  let last = 0;
  const instance = autocannon({
    url: message.url,
    connections: message.connections,
    amount: message.amount,
    // Under valgrind on a loaded machine one request can take longer than autocannon's 10 s default.
    timeout: Number(process.env.BENCH_TIMEOUT_S ?? 10),
    // autocannon only notices the end on a sample tick; timing comes from the responses below instead.
    sampleInt: 25,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => {
          if (next === pool.length) {
            next = 0;
            reused++;
          }
          const delivery = pool[next++]!;
          return { ...req, method: 'POST', body: delivery.body, headers: delivery.headers };
        },
      },
    ],
    // Without a callback autocannon returns its tracker, which is also a promise of the result.
  }) as unknown as autocannon.Instance & Promise<autocannon.Result>;
  const errorCodes = new Set<string>();
  instance.on('reqError', (error: NodeJS.ErrnoException) => errorCodes.add(error.code ?? error.message));
  instance.on('response', () => {
    last = performance.now();
    if (first === 0) first = last;
  });
  const result = await instance;
  // First to last response: the connections are already open, so the first answer marks the start.
  const seconds = (last - first) / 1000;
  return {
    type: 'result',
    requests: result.requests.total,
    rps: (result.requests.total - 1) / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    errorCodes: [...errorCodes],
    timeouts: result.timeouts,
    reused,
  };
}

process.on('message', (message: LoadRequest) => {
  if (message.type !== 'run') return;
  run(message).then(
    (result) => process.send?.(result),
    (error) => process.send?.({ type: 'result', error: String(error?.stack ?? error) }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready' });
