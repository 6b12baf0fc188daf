import type { InspectorState } from './inspector-state.js';

/** What `startInspector` serves: the deliveries it shows and the emulator its buttons act on. */
export interface InspectorOptions {
  state: InspectorState;
  /** The emulator the buttons act on. */
  apiBase: string;
  /** The event types the trigger button offers (those the webhook subscribes to). */
  events: readonly string[];
  /** How to play a trigger of `type` on the emulator: the route and body `sms-webhooks trigger` posts. */
  scenario(type: string): { path: string; body: unknown };
  port: number;
}
