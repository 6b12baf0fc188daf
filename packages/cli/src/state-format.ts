import type { AnyWebhookEvent } from '@sms-webhooks/core';

// The state file's format, apart from the code that reads and writes it (state-file.ts) and the code
// that fills it (listen-history.ts, commands/send.ts), so that neither has to import the other.

/** An event `send` posted, kept so `send --id` repeats the same bytes with the next attempt number. */
export interface SentEvent {
  type: string;
  body: string;
  attempt: number;
}

/** What the CLI keeps between runs: a small JSON file, readable only by its owner (it holds a secret). */
export interface CliState {
  /** The secret `listen` gives its emulator's webhooks, so an app keeps verifying across restarts. */
  webhook_secret?: string;
  /** Newest last; at most MAX_SENT_EVENTS (state-file.ts). */
  sent_events?: Record<string, SentEvent>;
  /** The events of `listen`'s last run and their scheduled retries, taken up by the next run. */
  listen_events?: KeptEvent[];
}

/** One event of `listen`'s last run as the state file keeps it. */
export interface KeptEvent {
  event: AnyWebhookEvent;
  attempts: number;
  /** ISO time of the retry that was scheduled, or null. */
  next_attempt_at: string | null;
}
