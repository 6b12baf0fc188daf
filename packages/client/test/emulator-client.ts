import {
  type ClientOptions,
  createClient,
  isServiceApiError,
  type ServiceApiError,
} from '@sms-webhooks/client';
import { createEmulator, type Emulator, type EmulatorOptions } from '@sms-webhooks/emulator';
import { expect } from 'vitest';

export interface Seen {
  method: string;
  path: string;
  status: number;
  apiKey: string | null;
  authorization: string | null;
}

let current: Emulator | undefined;

/** A real emulator, and a client whose fetch records what it sent and got back. */
export async function startEmulatorClient(
  emulatorOptions: EmulatorOptions = {},
  clientOptions: Partial<ClientOptions> = {},
) {
  const emulator = createEmulator({ allowInsecureLoopback: true, ...emulatorOptions });
  current = emulator;
  const baseUrl = await emulator.listen();
  const seen: Seen[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const headers = new Headers(init?.headers);
    seen.push({
      method: init?.method ?? 'GET',
      path: new URL(String(input)).pathname,
      status: res.status,
      apiKey: headers.get('x-api-key'),
      authorization: headers.get('authorization'),
    });
    return res;
  };
  const client = createClient({ apiKey: 'sk_test_client', baseUrl, fetch: recordingFetch, ...clientOptions });
  return { client, seen, emulator, baseUrl };
}

/** Closes the emulator the last startEmulatorClient() started: for afterEach. */
export async function closeEmulator(): Promise<void> {
  await current?.close();
  current = undefined;
}

/** The ServiceApiError a call rejects with (and fails the test when it rejects with anything else). */
export async function rejection(promise: Promise<unknown>): Promise<ServiceApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isServiceApiError(error)).toBe(true);
  return error as ServiceApiError;
}
