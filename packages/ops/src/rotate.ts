import type { Client } from '@sms-webhooks/client';
import {
  checkDeclaration,
  type PublicWebhook,
  type WebhookDeclaration,
  withoutSecret,
} from './declaration.js';
import { OpsError, optionMistake, positiveMs } from './errors.js';
import type { PendingDelivery } from './pending.js';
import { type ProbeResult, probeApp } from './probe.js';
import { retireWebhook } from './retire.js';
import { type SmokeTestResult, smokeTest } from './smoke-test.js';
import { type Clock, clockOption, sleep } from './wait.js';

/** Which webhook {@link rotateWebhook} replaces, how the new secret reaches the app, and how long it waits. */
export interface RotateOptions {
  /** The webhook to replace (`wh_…`). */
  webhookId: string;
  /** What the replacement is; default the old webhook's URL, events and description. Must include `webhook.test`. */
  declaration?: WebhookDeclaration;
  /**
   * Gets the replacement's secret, once: write it where the app reads it (a secret manager, a file only
   * the owner can read). The app must then accept both secrets (the receiver's `secret: [old, new]`).
   */
  handOver(secret: string, replacement: PublicWebhook): void | Promise<void>;
  /** How long to wait for the app to accept deliveries signed with the new secret. Default 15 min. */
  timeoutMs?: number;
  /** Between two smoke tests while the app does not accept it yet. Default 15 s. */
  retryMs?: number;
  /** How long one smoke test waits for the app's answer. Default 30 s. */
  answerTimeoutMs?: number;
  /** Each smoke test's result, as it comes (to show progress). */
  onSmokeTest?(result: SmokeTestResult): void;
  /**
   * Ask the app itself first: a `webhook.test` delivery signed with the new secret, POSTed to the URL
   * from this process, until the app answers it 2xx; only then the service's test delivery. So the
   * service records no refused test delivery of rotation's own (each would be retried for hours). When
   * the URL cannot be reached from here, rotation goes by the service's test deliveries alone.
   * Default true.
   */
  probe?: boolean;
  /** Each probe's result, as it comes. */
  onProbe?(result: ProbeResult): void;
  /**
   * After the app accepts the new secret, how long to wait for the old webhook's pending deliveries
   * (retries the replacement does not have) before deleting it. Past it, the old webhook is kept and
   * the result names what it waits for: finish with `retireWebhook`. Default 15 min; 0 checks once.
   */
  drainTimeoutMs?: number;
  /** What the old webhook still owes, after each check that found something. */
  onWaiting?(pending: PendingDelivery[]): void;
  /** Where the waits take their time; a `VirtualClock` in tests. Default the system clock. */
  clock?: Clock;
  /** Aborts the waits: the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** What {@link rotateWebhook} did, once the app accepted the new secret. */
export interface RotateResult {
  /** The webhook replaced. */
  old: PublicWebhook;
  /** The new webhook (its secret went to `handOver` only). */
  replacement: PublicWebhook;
  /** The smoke test the app answered 2xx. */
  accepted: SmokeTestResult;
  /** Smoke tests sent, the accepted one included. */
  smokeTests: number;
  /** Probes sent straight to the app (see `probe`). */
  probes: number;
  /**
   * True when the old webhook was deleted. False when it still had deliveries pending that only it
   * carries (`waitingFor`) at the end of `drainTimeoutMs`: both webhooks stay live (the dedupe store
   * runs each event once); finish with `retireWebhook(client, { webhookId: old.id, replacementId })`
   * (`sms-webhooks webhooks retire`) once those attempts are over.
   */
  oldDeleted: boolean;
  /** What the old webhook still owes when it was kept (empty once deleted). */
  waitingFor: PendingDelivery[];
}

/**
 * Replaces a webhook, for a new secret or new events (the service has no update): creates the
 * replacement, hands its secret over, waits until the app answers a test delivery signed with it 2xx,
 * then deletes the old one once it owes the app nothing (see `drainTimeoutMs`). Until then both webhooks
 * deliver (the same event id through both: the dedupe store runs it once). When the app never accepts
 * the new secret, nothing is deleted and this rejects with ERR_SMS_OPS_NOT_ACCEPTED naming both webhooks.
 */
export async function rotateWebhook(
  client: Pick<Client, 'listWebhooks' | 'createWebhook' | 'deleteWebhook' | 'testWebhook' | 'listDeliveries'>,
  options: RotateOptions,
): Promise<RotateResult> {
  if (typeof options !== 'object' || options === null) {
    throw optionMistake('rotateWebhook(client, { webhookId, handOver }) takes an options object.');
  }
  if (typeof options.webhookId !== 'string' || !options.webhookId.startsWith('wh_')) {
    throw optionMistake(
      `\`webhookId\` must be the wh_… id of the webhook to replace, got ${JSON.stringify(options.webhookId)}.`,
    );
  }
  if (typeof options.handOver !== 'function') {
    throw optionMistake(
      '`handOver(secret)` must be a function that stores the new secret where the app reads it.',
    );
  }
  const timeoutMs = positiveMs('timeoutMs', options.timeoutMs, 15 * 60_000);
  const retryMs = positiveMs('retryMs', options.retryMs, 15_000);
  const answerTimeoutMs = positiveMs('answerTimeoutMs', options.answerTimeoutMs, 30_000);
  const drainTimeoutMs =
    options.drainTimeoutMs === 0 ? 0 : positiveMs('drainTimeoutMs', options.drainTimeoutMs, 15 * 60_000);
  const clock = clockOption(options.clock);
  if (options.declaration !== undefined) checkDeclaration(options.declaration);

  const old = (await client.listWebhooks()).data.find((w) => w.id === options.webhookId);
  if (!old)
    throw new OpsError('ERR_SMS_OPS_NO_WEBHOOK', `no live webhook ${options.webhookId} in this workspace.`);
  const declared = checkDeclaration(options.declaration ?? old);
  if (!declared.events.includes('webhook.test')) {
    throw optionMistake(
      'the replacement must subscribe to webhook.test: rotation waits for a test delivery the app accepts.',
    );
  }
  const created = await client.createWebhook({
    url: declared.url,
    events: [...declared.events],
    ...(declared.description === '' ? {} : { description: declared.description }),
  });
  const replacement = withoutSecret(created);
  await options.handOver(created.secret, replacement);

  const accepted = await untilAccepted(client, replacement, created.secret, {
    ...options,
    timeoutMs,
    retryMs,
    answerTimeoutMs,
    clock,
  });
  const retired = await retireWebhook(client, {
    webhookId: old.id,
    replacementId: replacement.id,
    timeoutMs: drainTimeoutMs,
    pollMs: retryMs,
    onWaiting: options.onWaiting,
    clock,
    signal: options.signal,
  });
  return {
    old: withoutSecret(old),
    replacement,
    ...accepted,
    oldDeleted: retired.deleted,
    waitingFor: retired.waitingFor,
  };
}

/**
 * Until the app answers a test delivery of the replacement 2xx: a probe straight to the app first (no
 * record at the service while the app does not have the secret yet), then the service's test delivery.
 * Rejects with ERR_SMS_OPS_NOT_ACCEPTED past `timeoutMs`, deleting nothing.
 */
async function untilAccepted(
  client: Pick<Client, 'testWebhook' | 'listDeliveries'>,
  replacement: PublicWebhook,
  secret: string,
  options: RotateOptions & { timeoutMs: number; retryMs: number; answerTimeoutMs: number; clock: Clock },
): Promise<{ accepted: SmokeTestResult; smokeTests: number; probes: number }> {
  const { timeoutMs, retryMs, answerTimeoutMs, clock, signal } = options;
  const deadline = clock.now() + timeoutMs;
  let probing = options.probe !== false;
  let probes = 0;
  let smokeTests = 0;
  let lastError = 'none';
  for (;;) {
    let refused = false;
    if (probing) {
      const probe = await probeApp(replacement.url, secret, { timeoutMs: answerTimeoutMs, clock, signal });
      probes++;
      options.onProbe?.(probe);
      // Unreachable from here: the service's test deliveries are the only way to ask.
      if (probe.outcome === 'unreachable') probing = false;
      refused = probe.outcome === 'refused';
      if (refused) lastError = `${probe.error} (to a delivery signed with the new secret)`;
    }
    if (!refused) {
      const result = await smokeTest(client, replacement.id, {
        timeoutMs: answerTimeoutMs,
        clock,
        signal,
        pollMs: Math.min(1000, answerTimeoutMs),
      });
      smokeTests++;
      options.onSmokeTest?.(result);
      if (result.ok) return { accepted: result, smokeTests, probes };
      lastError = result.error ?? 'not 2xx';
    }
    if (clock.now() + retryMs > deadline) break;
    await sleep(clock, retryMs, signal);
  }
  throw new OpsError(
    'ERR_SMS_OPS_NOT_ACCEPTED',
    `the app did not accept deliveries of ${replacement.id} within ${timeoutMs} ms (last answer: ${lastError}). ` +
      `Both webhooks are live and nothing was deleted: deploy the app with both secrets and run again with ` +
      `the same old webhook (${options.webhookId}), after deleting ${replacement.id}, or delete ${replacement.id} to give up.`,
  );
}
