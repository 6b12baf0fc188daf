import { type Client, deliveryOutcome, type WebhookDelivery } from '@sms-webhooks/client';
import { optionMistake, positiveMs } from './errors.js';
import { type Clock, clockOption, sleep } from './wait.js';

/**
 * `ok`: the app answered the `webhook.test` delivery 2xx. Otherwise `statusCode` and `error` are what it
 * answered (null and a reason when no answer was recorded before `timeoutMs`).
 */
export interface SmokeTestResult {
  /** The app answered 2xx. */
  ok: boolean;
  /** The webhook tested. */
  webhookId: string;
  /** The test event's id, or null when the service's answer named none. */
  eventId: string | null;
  /** The app's HTTP status, or null when no answer was recorded. */
  statusCode: number | null;
  /** Why it is not `ok`, or null. */
  error: string | null;
}

/** How long {@link smokeTest} waits for the app's answer. */
export interface SmokeTestOptions {
  /** How long to wait for the delivery's first answer. Default 60 s. */
  timeoutMs?: number;
  /** Between two reads of the deliveries list. Default 1 s. */
  pollMs?: number;
  /** Where the waits take their time; a `VirtualClock` in tests. Default the system clock. */
  clock?: Clock;
  /** Aborts the waits: the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

function eventIdOf(body: unknown): string | undefined {
  const id = (body as { event_id?: unknown } | null | undefined)?.event_id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Sends one `webhook.test` event (`POST /v1/webhooks/{id}/test`) and waits until the deliveries list
 * shows its first answer: 2xx is `ok`; anything else is reported as the app answered it. The webhook
 * must subscribe to `webhook.test` (the service answers 422 otherwise).
 */
export async function smokeTest(
  client: Pick<Client, 'testWebhook' | 'listDeliveries'>,
  webhookId: string,
  options: SmokeTestOptions = {},
): Promise<SmokeTestResult> {
  if (typeof client?.testWebhook !== 'function' || typeof client.listDeliveries !== 'function') {
    throw optionMistake(
      'smokeTest(client, webhookId): `client` comes from createClient of @sms-webhooks/client.',
    );
  }
  const timeoutMs = positiveMs('timeoutMs', options.timeoutMs, 60_000);
  const pollMs = positiveMs('pollMs', options.pollMs, 1000);
  const clock = clockOption(options.clock);
  const before = new Set((await client.listDeliveries(webhookId)).data.map((d) => d.id));
  const eventId = eventIdOf(await client.testWebhook(webhookId));
  const isOurs = (d: WebhookDelivery) =>
    eventId !== undefined ? d.event_id === eventId : d.test && !before.has(d.id);
  const deadline = clock.now() + timeoutMs;
  for (;;) {
    const record = (await client.listDeliveries(webhookId)).data.find(isOurs);
    const outcome = record && deliveryOutcome(record);
    const result = (ok: boolean, error: string | null): SmokeTestResult => ({
      ok,
      webhookId,
      eventId: record?.event_id ?? eventId ?? null,
      statusCode: record?.last_status_code ?? null,
      error,
    });
    if (outcome === 'delivered') return result(true, null);
    if (outcome === 'retrying' || outcome === 'failed') {
      return result(false, record!.last_error ?? `HTTP ${record!.last_status_code}`);
    }
    if (clock.now() >= deadline) {
      return result(
        false,
        `no answer recorded within ${timeoutMs} ms (${record ? 'attempt under way' : 'no delivery listed yet'})`,
      );
    }
    await sleep(clock, Math.min(pollMs, Math.max(0, deadline - clock.now())), options.signal);
  }
}
