import { createClient } from '@sms-webhooks/client';
import type { EventType } from '@sms-webhooks/core';
import { createEmulator, type Emulator, type EmulatorOptions } from '@sms-webhooks/emulator';

export const ALL_TYPES: EventType[] = [
  'message.sent',
  'message.delivered',
  'message.failed',
  'message.replied',
  'sms.completed',
  'webhook.test',
];

/** An emulator that accepts plain-HTTP loopback URLs, and a client bound to it. */
export async function startEmulator(options: EmulatorOptions = {}, apiKey = 'sk_test_e2e') {
  const emulator: Emulator = createEmulator({ allowInsecureLoopback: true, ...options });
  const baseUrl = await emulator.listen();
  const client = createClient({ apiKey, baseUrl, allowInsecureLoopback: true });
  return { emulator, client, baseUrl };
}
