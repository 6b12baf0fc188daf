import type { EventDataMap, EventType, WebhookEvent } from '@sms-webhooks/core';
import { sampleData as sampleFields } from '@sms-webhooks/internal';
import { randomId } from './clock.js';

/** A sample `data` object for the type, as core's createTestDelivery makes one. */
export function sampleData<T extends EventType>(type: T, now: Date): EventDataMap[T] {
  return sampleFields(type, now, randomId) as EventDataMap[T];
}

export function buildEvent<T extends EventType>(
  type: T,
  data: EventDataMap[T],
  test: boolean,
  now: Date,
): WebhookEvent<T> {
  return {
    id: randomId('evt'),
    object: 'event',
    type,
    api_version: 'v1',
    created_at: now.toISOString(),
    test,
    data,
  } as WebhookEvent<T>;
}

/** How `emulator.simulateSend()` plays one send: who receives it, who fails, who replies. */
export interface SimulateSendOptions {
  /** Recipient numbers in international format; default `recipients` generated numbers. */
  to?: string[];
  /** How many recipients to generate when `to` is not given. Default 1. */
  recipients?: number;
  /** Recipients whose message fails (`message.failed` instead of `message.delivered`). */
  fail?: string[];
  /** Inbound replies by recipient number: `{ "+15555550100": "STOP" }`. Only delivered recipients reply. */
  replies?: Record<string, string>;
  /** Client metadata copied onto every message. */
  metadata?: Record<string, string>;
  /** Only this workspace's webhooks receive the events; default every workspace. */
  workspaceId?: string;
}

export interface PlannedEvent {
  type: EventType;
  data: Record<string, unknown>;
}

export interface SendPlan {
  smsId: string;
  messages: { id: string; to: string; outcome: 'delivered' | 'failed'; reply: string | null }[];
  events: PlannedEvent[];
}

export function generatedNumber(i: number): string {
  return `+1555555${String(100 + i).padStart(4, '0')}`;
}

/**
 * The life of one send: `message.sent` for each recipient, then `message.delivered` or
 * `message.failed`, then replies, then `sms.completed` once every recipient has a final result.
 */
export function planSend(options: SimulateSendOptions, now: Date): SendPlan {
  const to = options.to ?? Array.from({ length: options.recipients ?? 1 }, (_, i) => generatedNumber(i));
  const failing = new Set(options.fail ?? []);
  const smsId = randomId('sms');
  const at = now.toISOString();
  const messages = to.map((number) => ({
    id: randomId('msg'),
    to: number,
    outcome: failing.has(number) ? ('failed' as const) : ('delivered' as const),
    reply: failing.has(number) ? null : (options.replies?.[number] ?? null),
  }));
  // Each status moves the message on: its updated_at grows with it (sent, then delivered or failed, then
  // replied), as the service's do, so an app that orders by updated_at (`order: true`) sees the real order.
  const step: Record<string, number> = { sent: 0, delivered: 1, failed: 1, replied: 2 };
  const message = (m: (typeof messages)[number], status: string, extra: Record<string, unknown> = {}) => ({
    ...sampleData('message.sent', now),
    id: m.id,
    sms_id: smsId,
    to: m.to,
    status,
    error: null,
    kind: 'utility',
    updated_at: new Date(now.getTime() + (step[status] ?? 0)).toISOString(),
    metadata: { ...options.metadata },
    ...extra,
  });
  const events: PlannedEvent[] = [];
  for (const m of messages) events.push({ type: 'message.sent', data: message(m, 'sent') });
  for (const m of messages) {
    events.push(
      m.outcome === 'delivered'
        ? { type: 'message.delivered', data: message(m, 'delivered') }
        : {
            type: 'message.failed',
            data: message(m, 'failed', {
              error: { code: 'unreachable', message: 'The handset could not be reached.' },
            }),
          },
    );
  }
  for (const m of messages) {
    if (m.reply !== null)
      events.push({ type: 'message.replied', data: message(m, 'replied', { text: m.reply }) });
  }
  const delivered = messages.filter((m) => m.outcome === 'delivered').length;
  events.push({
    type: 'sms.completed',
    data: {
      id: smsId,
      object: 'sms',
      recipients: messages.length,
      delivered,
      failed: messages.length - delivered,
      completed_at: at,
      metadata: { ...options.metadata },
    },
  });
  return { smsId, messages, events };
}
