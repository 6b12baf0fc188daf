import { createTestDelivery } from '@sms-webhooks/core';
import type { Clock } from './wait.js';

/**
 * `accepted`: the app answered 2xx to a delivery signed with the secret. `refused`: it answered, not 2xx
 * (`statusCode`). `unreachable`: no answer from here (a private network only the service reaches, a
 * firewall): the caller goes by the service's own test deliveries instead.
 */
export interface ProbeResult {
  /** See above. */
  outcome: 'accepted' | 'refused' | 'unreachable';
  /** The app's HTTP status, or null when it did not answer. */
  statusCode: number | null;
  /** Why it is not `accepted`, or null. */
  error: string | null;
}

/**
 * POSTs one `webhook.test` delivery to `url`, signed with `secret` as the service signs, straight from
 * this process: whether the app accepts a secret can be asked without the service recording a refused
 * delivery (and retrying it for hours). The body is the service's Event shape with `test: true`.
 */
export async function probeApp(
  url: string,
  secret: string,
  options: { timeoutMs: number; clock: Clock; signal?: AbortSignal | undefined },
): Promise<ProbeResult> {
  const delivery = createTestDelivery('webhook.test', {
    secret,
    timestamp: Math.floor(options.clock.now() / 1000),
  });
  // A real socket: its time limit is real time, whatever clock the waits between probes run on.
  const limit = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([limit, options.signal]) : limit;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
      redirect: 'manual',
      signal,
    });
    if (res.status >= 200 && res.status < 300) {
      await res.body?.cancel().catch(() => {});
      return { outcome: 'accepted', statusCode: res.status, error: null };
    }
    return { outcome: 'refused', statusCode: res.status, error: await refusalOf(res) };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const reason =
      typeof cause?.code === 'string'
        ? cause.code
        : limit.aborted
          ? `no answer within ${options.timeoutMs} ms`
          : String((error as Error).message ?? error);
    return { outcome: 'unreachable', statusCode: null, error: reason };
  }
}

/** `HTTP 400 signature_mismatch` from the receiver's `{"error":{"code"}}`, read from its first 4 KiB at most. */
async function refusalOf(res: Response): Promise<string> {
  let code: unknown;
  try {
    const reader = res.body?.getReader();
    let text = '';
    while (reader && text.length < 4096) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader?.cancel().catch(() => {});
    code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
  } catch {
    // Not our receiver's JSON: the status says enough.
  }
  return typeof code === 'string' && /^[a-z_]{1,64}$/.test(code)
    ? `HTTP ${res.status} ${code}`
    : `HTTP ${res.status}`;
}
