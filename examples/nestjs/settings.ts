import type { DedupeStore, RespondMode } from '@sms-webhooks/core';

export interface ExampleSettings {
  /** The webhook secret (whsec_…); several while rotating. */
  secret: string | string[];
  /** Default 'immediately'; 'after-handlers' lets the service retry events whose handler failed. */
  respond?: RespondMode;
  /** Default a MemoryStore; pass a RedisStore when several instances run. */
  store?: DedupeStore;
  /** Where the app says what it received. Default console.log. */
  log?: (line: string) => void;
  /**
   * Makes every handler wait this long before it logs, like real work (a database write). The shutdown
   * test uses it to send SIGTERM while a handler runs and see that it still finishes. Default 0.
   */
  slowHandlerMs?: number;
}

/** How the providers below get the settings (an injection token, as a Nest app would have for its config). */
export const EXAMPLE_SETTINGS = 'EXAMPLE_SETTINGS';
