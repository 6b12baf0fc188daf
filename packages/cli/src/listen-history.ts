import type { DeliveryHistory, Emulator } from '@sms-webhooks/emulator';
import { readState, writeState } from './state-file.js';
import type { CliState, KeptEvent } from './state-format.js';

/** The newest events kept; older ones are dropped from the file (and so from `resend` after a restart). */
const MAX_KEPT_EVENTS = 100;

export interface TakenUp {
  events: number;
  retries: number;
  /** Epoch ms of the first retry due, or null. */
  nextAt: number | null;
  /** Events not taken up because this run's webhook does not subscribe to their type. */
  dropped: { id: string; type: string }[];
}

function isKeptEvent(value: unknown): value is KeptEvent {
  const v = value as KeptEvent;
  return (
    v !== null &&
    typeof v === 'object' &&
    typeof v.event?.id === 'string' &&
    typeof v.event?.type === 'string' &&
    Number.isInteger(v.attempts) &&
    (v.next_attempt_at === null || !Number.isNaN(Date.parse(v.next_attempt_at)))
  );
}

/** Hands the last run's events to this run's webhook: its scheduled retries run, `resend` knows them. */
export function takeUp(
  state: CliState,
  emulator: Emulator,
  webhookId: string,
  events: readonly string[],
): TakenUp {
  const kept = Array.isArray(state.listen_events) ? state.listen_events.filter(isKeptEvent) : [];
  const adopted: DeliveryHistory[] = [];
  const dropped: TakenUp['dropped'] = [];
  for (const k of kept) {
    if (!events.includes(k.event.type)) {
      if (k.next_attempt_at !== null) dropped.push({ id: k.event.id, type: k.event.type });
      continue;
    }
    adopted.push({
      event: k.event,
      attempts: k.attempts,
      nextAttemptAt: k.next_attempt_at === null ? null : Date.parse(k.next_attempt_at),
    });
  }
  emulator.adopt(webhookId, adopted);
  const due = adopted.flatMap((h) => (h.nextAttemptAt === null ? [] : [h.nextAttemptAt]));
  return {
    events: adopted.length,
    retries: due.length,
    nextAt: due.length === 0 ? null : Math.min(...due),
    dropped,
  };
}

/**
 * Writes the webhook's events to the state file after each change, one write at a time: a change during a
 * write is written once that write is done. The file is read again first, so `send`'s entries and the
 * secret are kept.
 */
export class HistoryWriter {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly path: string,
    private readonly history: () => DeliveryHistory[],
    private readonly onError: (error: unknown) => void,
  ) {}

  save(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          const state = await readState(this.path);
          await writeState(this.path, { ...state, listen_events: this.snapshot() });
        } catch (error) {
          this.onError(error);
        }
      } while (this.again);
      this.running = undefined;
    })();
    return this.running;
  }

  private snapshot(): KeptEvent[] {
    return this.history()
      .slice(-MAX_KEPT_EVENTS)
      .map((h) => ({
        event: h.event,
        attempts: h.attempts,
        next_attempt_at: h.nextAttemptAt === null ? null : new Date(h.nextAttemptAt).toISOString(),
      }));
  }
}
