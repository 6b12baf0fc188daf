import type { Receiver } from '../receiver/receiver.js';
import type { TestApi } from './test-api.js';

/** A running app with the adapter mounted; `url` is the full URL of the webhook route. */
export interface AdapterServer {
  /** The webhook route's full URL, e.g. `http://127.0.0.1:40123/webhooks/sms`. */
  url: string;
  /** Stops the server; the contract calls it after each row. */
  close(): Promise<void>;
}

/**
 * Starts a real HTTP server (127.0.0.1, port 0) whose framework app mounts `receiver` at `path` with
 * the adapter under test, exactly as a user would.
 */
export interface AdapterHarness {
  /** Starts an app with `receiver` mounted at `options.path` and resolves once it listens. */
  start(receiver: Receiver, options: { path: string }): Promise<AdapterServer>;
}

/** Options of {@link runAdapterContract}; `describe` and `it` default to the runner's globals. */
export interface AdapterContractOptions extends Partial<TestApi> {
  /** The runner's `describe`; default the global one. */
  describe?: TestApi['describe'];
  /** The runner's `it`; default the global one. */
  it?: TestApi['it'];
  /** Path the contract asks the harness to mount the webhook on. Default '/webhooks/sms'. */
  path?: string;
  /**
   * Whether the adapter owns the Node socket, so it can make the close after an early 413 a lingering
   * one (default true), and reads the body with core's Node reader (limits, `maxBufferedBodyBytes`). A
   * Web-standard `(Request) => Response` handler does not: there the platform's server closes the
   * connection and reads the body, and the rows that need either are left out.
   */
  ownsConnection?: boolean;
  /**
   * Whether the harness mounts a route with a parameter (`${path}/:tenant`) as given, so the row on many
   * tenants runs (default true). Only a harness without a router, which matches one fixed path, says false.
   */
  routeParams?: boolean;
}
