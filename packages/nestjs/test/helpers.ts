import type { AddressInfo } from 'node:net';
import type { INestApplication, LoggerService, ModuleMetadata } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test, type TestingModuleBuilder } from '@nestjs/testing';

export type Platform = 'express' | 'fastify';
export const PLATFORMS: Platform[] = ['express', 'fastify'];

export const SECRET = 'whsec_nestjsmodule0123456789abcdef01';

export interface StartedApp {
  app: INestApplication;
  origin: string;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Changes to the testing module before it compiles (overrideProvider, …). */
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
  /** Nest's logger for the app; default none (quiet). */
  logger?: LoggerService | false;
  /** Runs on the app before it listens (a global prefix, …). */
  configure?: (app: INestApplication) => void;
}

export function adapterFor(platform: Platform) {
  return platform === 'express' ? new ExpressAdapter() : new FastifyAdapter();
}

/** A Nest app from `metadata` on `platform`, listening on 127.0.0.1 and a free port, as a user would run it. */
export async function startApp(
  platform: Platform,
  metadata: ModuleMetadata,
  options: StartOptions = {},
): Promise<StartedApp> {
  let builder = Test.createTestingModule(metadata);
  if (options.override) builder = options.override(builder);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication(adapterFor(platform), { logger: options.logger ?? false });
  options.configure?.(app);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, origin: `http://127.0.0.1:${port}`, close: () => app.close() };
}

/** POSTs a delivery (or any body) and reads the answer as JSON. */
export async function post(
  url: string,
  delivery: { body: string; headers: Record<string, string> },
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body };
}

/**
 * A Nest LoggerService that keeps what it is given: `level [context] message`. Not the shared
 * captureLogger (@sms-webhooks/test-helpers): Nest passes a context and calls log and debug too.
 */
export function captureNestLogger(): LoggerService & { lines: string[] } {
  const lines: string[] = [];
  const keep =
    (level: string) =>
    (message: unknown, ...rest: unknown[]) => {
      const context = rest.length > 0 ? rest[rest.length - 1] : '';
      lines.push(`${level} [${String(context)}] ${String(message)}`);
    };
  return { lines, log: keep('log'), warn: keep('warn'), error: keep('error'), debug: keep('debug') };
}
