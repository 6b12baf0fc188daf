import type { Client } from '@sms-webhooks/client';
import type { Clock } from '@sms-webhooks/core/testing';
import {
  checkDeclaration,
  type PublicWebhook,
  type WebhookDeclaration,
  withoutSecret,
} from './declaration.js';
import { OpsError, optionMistake, positiveMs } from './errors.js';
import { type SmokeTestResult, smokeTest } from './smoke-test.js';
import { clockOption, sleep } from './wait.js';

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
  clock?: Clock;
  signal?: AbortSignal;
}

export interface RotateResult {
  old: PublicWebhook;
  replacement: PublicWebhook;
  /** The smoke test the app answered 2xx. */
  accepted: SmokeTestResult;
  /** Smoke tests sent, the accepted one included. */
  smokeTests: number;
}

/**
 * Replaces a webhook, for a new secret or new events (the service has no update): creates the
 * replacement, hands its secret over, waits until the app answers a test delivery signed with it 2xx,
 * then deletes the old one. Until then both webhooks deliver (the same event id through both: the
 * dedupe store runs it once). When the app never accepts the new secret, nothing is deleted and this
 * rejects with ERR_SMS_OPS_NOT_ACCEPTED naming both webhooks.
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

  const deadline = clock.now() + timeoutMs;
  let last: SmokeTestResult | undefined;
  for (let sent = 1; ; sent++) {
    last = await smokeTest(client, replacement.id, {
      timeoutMs: answerTimeoutMs,
      clock,
      signal: options.signal,
      pollMs: Math.min(1000, answerTimeoutMs),
    });
    options.onSmokeTest?.(last);
    if (last.ok) {
      await client.deleteWebhook(old.id);
      return { old: withoutSecret(old), replacement, accepted: last, smokeTests: sent };
    }
    if (clock.now() + retryMs > deadline) break;
    await sleep(clock, retryMs, options.signal);
  }
  throw new OpsError(
    'ERR_SMS_OPS_NOT_ACCEPTED',
    `the app did not accept deliveries of ${replacement.id} within ${timeoutMs} ms (last answer: ${last.error}). ` +
      `Both webhooks are live and nothing was deleted: deploy the app with both secrets and run again with ` +
      `the same old webhook (${old.id}), after deleting ${replacement.id}, or delete ${replacement.id} to give up.`,
  );
}
