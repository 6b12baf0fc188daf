import { createEmulator, type Emulator, type EmulatorOptions } from '@sms-webhooks/emulator';

export interface ApiCall {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Harness {
  emulator: Emulator;
  url: string;
  call(
    method: string,
    path: string,
    init?: ApiCall,
  ): Promise<{
    status: number;
    headers: Headers; // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are read field by field in assertions
    body: any;
  }>;
  token(apiKey?: string): Promise<string>;
}

const open: Emulator[] = [];

export async function startEmulator(options: EmulatorOptions = {}): Promise<Harness> {
  const emulator = createEmulator(options);
  open.push(emulator);
  const url = await emulator.listen();
  async function call(method: string, path: string, init: ApiCall = {}) {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    if (init.body !== undefined || method === 'POST') headers['content-type'] ??= 'application/json';
    const res = await fetch(`${url}${path}`, {
      method,
      headers,
      body:
        init.body === undefined
          ? undefined
          : typeof init.body === 'string'
            ? init.body
            : JSON.stringify(init.body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
  }
  async function token(apiKey = 'sk_test_emulator') {
    const res = await call('POST', '/v1/auth/token', { headers: { 'x-api-key': apiKey } });
    if (res.status !== 200) throw new Error(`token exchange failed: ${res.status}`);
    return res.body.access_token as string;
  }
  return { emulator, url, call, token };
}

export async function closeAll(): Promise<void> {
  await Promise.all(open.splice(0).map((e) => e.close()));
}
