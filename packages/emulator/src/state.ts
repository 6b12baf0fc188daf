import type { AnyWebhookEvent, EventType } from '@sms-webhooks/core';
import { TokenIssuer } from './auth.js';
import { DeliveryEngine } from './delivery-engine.js';
import { buildEvent, type PlannedEvent, planSend, type SimulateSendOptions, sampleData } from './events.js';
import type { ResolvedEmulatorOptions } from './options.js';
import { RateLimiter } from './rate-limiter.js';
import type { WebhookDelivery } from './types.js';
import { type WebhookEntry, WebhookRegistry } from './webhook-registry.js';

/** One event `emit` or `simulateSend` sent, and to which webhooks. */
export interface EmittedEvent {
  /** The event's id (`evt_…`), for `redeliver`. */
  id: string;
  /** The event's type. */
  type: EventType;
  /** The workspace whose webhooks received it. */
  workspace_id: string;
  /** Ids of the webhooks it was sent to. */
  webhooks: string[];
}

/** One event as an earlier run left it on a webhook: what `history` gives and `adopt` takes. */
export interface DeliveryHistory {
  /** The event as sent (its id and body are kept on every repeat). */
  event: AnyWebhookEvent;
  /** Attempts so far. */
  attempts: number;
  /** Epoch ms of the scheduled retry, or null when none is scheduled. */
  nextAttemptAt: number | null;
}

/** What `simulateSend` played: the send, each message's outcome, and every event it sent. */
export interface SimulatedSend {
  /** The send's id, as the events' `sms_id`. */
  sms_id: string;
  /** One per recipient: its message id, number, outcome and reply (null when none). */
  messages: { id: string; to: string; outcome: 'delivered' | 'failed'; reply: string | null }[];
  /** Every event sent, in order (`message.sent` … `sms.completed`). */
  events: EmittedEvent[];
}

const MAX_REMEMBERED_EVENTS = 10_000;

/** Everything the emulator knows, shared by the HTTP routes and the JS API. */
export class EmulatorState {
  readonly tokens: TokenIssuer;
  readonly limiter: RateLimiter;
  readonly webhooks: WebhookRegistry;
  readonly engine: DeliveryEngine;
  /** Each event as first sent, so it can be redelivered with the same id and body. */
  private readonly sent = new Map<string, { event: AnyWebhookEvent; entries: WebhookEntry[] }>();

  constructor(readonly options: ResolvedEmulatorOptions) {
    this.tokens = new TokenIssuer(options.apiKeys, options.now);
    const fixedFor = options.webhookSecretApiKeys?.map((key) => this.tokens.workspaceFor(key).id);
    this.webhooks = new WebhookRegistry(options.webhookSecret, fixedFor && new Set(fixedFor));
    this.limiter = new RateLimiter(options.rateLimit, options.now);
    this.engine = new DeliveryEngine(options);
  }

  /**
   * One event per workspace with a subscriber (events belong to a workspace; its mode sets `test`),
   * delivered to each of that workspace's webhooks listing the type.
   */
  publish(planned: PlannedEvent, workspaceId?: string): EmittedEvent[] {
    const groups = new Map<string, WebhookEntry[]>();
    for (const entry of this.webhooks.list(workspaceId)) {
      if (!entry.webhook.events.includes(planned.type)) continue;
      const group = groups.get(entry.workspace.id) ?? [];
      group.push(entry);
      groups.set(entry.workspace.id, group);
    }
    const emitted: EmittedEvent[] = [];
    for (const [wsId, entries] of groups) {
      const test = entries[0]!.workspace.mode === 'test';
      const event = buildEvent(planned.type, planned.data as never, test, new Date(this.options.now()));
      this.remember(event, entries);
      for (const entry of entries) this.engine.deliver(entry, event);
      emitted.push({
        id: event.id,
        type: planned.type,
        workspace_id: wsId,
        webhooks: entries.map((e) => e.webhook.id),
      });
    }
    return emitted;
  }

  emit(type: EventType, data?: Record<string, unknown>, workspaceId?: string): EmittedEvent[] {
    const now = new Date(this.options.now());
    return this.publish({ type, data: { ...sampleData(type, now), ...data } }, workspaceId);
  }

  simulateSend(options: SimulateSendOptions): SimulatedSend {
    const plan = planSend(options, new Date(this.options.now()));
    const events = plan.events.flatMap((e) => this.publish(e, options.workspaceId));
    return { sms_id: plan.smsId, messages: plan.messages, events };
  }

  /** The test operation of spec section 4: one `webhook.test` event to this webhook only. */
  sendTest(entry: WebhookEntry): WebhookDelivery {
    const now = new Date(this.options.now());
    const event = buildEvent('webhook.test', sampleData('webhook.test', now), true, now);
    this.remember(event, [entry]);
    return this.engine.deliver(entry, event, true);
  }

  private remember(event: AnyWebhookEvent, entries: WebhookEntry[]): void {
    this.sent.set(event.id, { event, entries });
    if (this.sent.size > MAX_REMEMBERED_EVENTS) this.sent.delete(this.sent.keys().next().value!);
  }

  /** Every event remembered for this webhook, oldest first, with its attempts and scheduled retry. */
  history(webhookId: string): DeliveryHistory[] {
    const out: DeliveryHistory[] = [];
    for (const { event, entries } of this.sent.values()) {
      if (!entries.some((e) => e.webhook.id === webhookId)) continue;
      out.push({
        event,
        attempts: this.engine.attemptsOf(webhookId, event.id),
        nextAttemptAt: this.engine.nextAttemptAt(webhookId, event.id),
      });
    }
    return out;
  }

  /** Takes up another run's events on this webhook: `redeliver` knows them, scheduled retries run. */
  adopt(webhookId: string, history: readonly DeliveryHistory[]): void {
    const entry = this.webhooks.find(webhookId);
    if (!entry || entry.deleted) throw new Error(`@sms-webhooks/emulator: no live webhook ${webhookId}.`);
    for (const h of history) {
      this.remember(h.event, [entry]);
      this.engine.adopt(entry, h.event, h.attempts, h.nextAttemptAt);
    }
  }

  /** Sends an already sent event again (same id, same body) as a new delivery, like a dashboard "resend". */
  redeliver(eventId: string): WebhookDelivery[] {
    const sent = this.sent.get(eventId);
    if (!sent) return [];
    return sent.entries
      .filter((e) => !e.deleted)
      .map((e) => this.engine.deliver(e, sent.event, sent.event.type === 'webhook.test'));
  }
}
