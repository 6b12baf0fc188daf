import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventType } from '@sms-webhooks/core';
import { dispatcher } from './dispatch.js';
import type { SimulateSendOptions } from './events.js';
import { type AttemptReport, type EmulatorOptions, resolveOptions } from './options.js';
import { type DeliveryHistory, type EmittedEvent, EmulatorState, type SimulatedSend } from './state.js';
import type { WebhookDelivery, WebhookOut } from './types.js';
import { isLoopbackHost } from './validate-webhook.js';

/**
 * A running (or ready to run) emulator of the SMS service, from {@link createEmulator}: the service's HTTP
 * API for a client, plus methods that make it send signed events to the registered webhooks.
 */
export interface Emulator {
  /** Base URL, e.g. `http://127.0.0.1:4010`; throws before `listen()`. */
  readonly url: string;
  /** The underlying `node:http` server, e.g. to mount it on a test harness. */
  readonly server: Server;
  /** Starts listening (options.port / options.host unless given) and resolves with the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /** Alias of `listen()`. */
  start(): Promise<string>;
  /** Cancels scheduled retries, aborts running attempts, closes the server. */
  close(): Promise<void>;
  /** Sends one event of `type` (sample data merged with `data`) to every subscribed webhook. */
  emit(type: EventType, options?: { data?: Record<string, unknown>; workspaceId?: string }): EmittedEvent[];
  /** message.sent, then delivered/failed per recipient, replies, then sms.completed. */
  simulateSend(options?: SimulateSendOptions): SimulatedSend;
  /** Sends an already sent event again, same id and body, as a new delivery record. */
  redeliver(eventId: string): WebhookDelivery[];
  /**
   * Every event sent to this webhook (oldest first, at most 10,000 in all), with its attempts so far and
   * the retry scheduled for it: what to keep for `adopt` in a later run.
   */
  history(webhookId: string): DeliveryHistory[];
  /**
   * Takes up events an earlier run sent (from its `history`) on this webhook: `redeliver` knows them and
   * continues their attempt count, and each scheduled retry runs at its time, at once when that has passed.
   */
  adopt(webhookId: string, history: readonly DeliveryHistory[]): void;
  /** Resolves once no delivery attempt is running or scheduled; rejects after `timeoutMs` (default 30 s). */
  waitForIdle(timeoutMs?: number): Promise<void>;
  /** Every live webhook, secrets included (this is the emulator's own view). */
  webhooks(): WebhookOut[];
  /** The webhook's delivery records, as `GET /v1/webhooks/{id}/deliveries` answers them. */
  deliveries(webhookId: string): WebhookDelivery[];
  /** Number of tokens issued so far, for tests of token caching. */
  readonly tokensIssued: number;
  /** Number of attempts running or scheduled. */
  readonly pendingDeliveries: number;
  /** Calls `listener` after every delivery attempt; returns the function that stops it. */
  onAttempt(listener: (report: AttemptReport) => void): () => void;
}

/**
 * The SMS service on your machine: its token and webhook API, and signed deliveries with the service's
 * retry schedule (`timeScale` shortens it, a `VirtualClock` runs it at once). For tests and local work.
 *
 * @example
 * ```ts
 * import { createClient } from '@sms-webhooks/client';
 * import { createEmulator } from '@sms-webhooks/emulator';
 *
 * const emulator = createEmulator({ allowInsecureLoopback: true, timeScale: 1 / 1000 });
 * const baseUrl = await emulator.listen(); // http://127.0.0.1:<free port>
 * const client = createClient({ apiKey: 'sk_test_local', baseUrl, allowInsecureLoopback: true });
 * const webhook = await client.createWebhook({
 *   url: 'http://127.0.0.1:3000/webhooks/sms', // your app, verifying with webhook.secret
 *   events: ['message.delivered', 'message.failed'],
 * });
 * emulator.simulateSend({ to: ['+15555550100', '+15555550101'], fail: ['+15555550101'] });
 * await emulator.waitForIdle();
 * console.log(emulator.deliveries(webhook.id));
 * await emulator.close();
 * ```
 */
export function createEmulator(options: EmulatorOptions = {}): Emulator {
  const opts = resolveOptions(options);
  const state = new EmulatorState(opts);
  let baseUrl: string | undefined;
  let boundToLoopback = isLoopbackHost(opts.host);

  const dispatch = dispatcher(state, () => boundToLoopback);
  const server = createServer((req, res) => void dispatch(req, res));

  return {
    get url() {
      if (baseUrl === undefined) throw new Error('@sms-webhooks/emulator: call listen() first.');
      return baseUrl;
    },
    server,
    listen(port = opts.port, host = opts.host) {
      boundToLoopback = isLoopbackHost(host);
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          const h = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          baseUrl = `http://${h}:${address.port}`;
          resolve(baseUrl);
        });
      });
    },
    start() {
      return this.listen();
    },
    async close() {
      state.engine.close();
      if (!server.listening) return;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    emit: (type, o = {}) => state.emit(type, o.data, o.workspaceId),
    simulateSend: (o = {}) => state.simulateSend(o),
    redeliver: (eventId) => state.redeliver(eventId),
    history: (webhookId) => state.history(webhookId),
    adopt: (webhookId, history) => state.adopt(webhookId, history),
    waitForIdle: (timeoutMs) => state.engine.waitForIdle(timeoutMs),
    webhooks: () => state.webhooks.list().map((e) => ({ ...e.webhook })),
    deliveries: (webhookId) => state.engine.deliveries(webhookId),
    get tokensIssued() {
      return state.tokens.issued;
    },
    get pendingDeliveries() {
      return state.engine.pending;
    },
    onAttempt: (listener) => state.engine.subscribe(listener),
  };
}
