import {
  type ConfigurableModuleAsyncOptions,
  ConfigurableModuleBuilder,
  type ConfigurableModuleCls,
} from '@nestjs/common';
import type { ReceiverOptions } from '@sms-webhooks/core';
import { drainTimeoutOption } from '@sms-webhooks/core/adapter';
import { optionError } from '@sms-webhooks/internal';

const OWNER = '@sms-webhooks/nestjs';

/** `SmsWebhooksModule.forRoot`'s options: the receiver's (`ReceiverOptions` of `@sms-webhooks/core`) and the route's. */
export interface SmsWebhooksModuleOptions extends ReceiverOptions {
  /**
   * The route the service POSTs to, e.g. '/webhooks/sms'. Mounted on the HTTP platform ahead of Nest's
   * router and body parsers, so `setGlobalPrefix` does not apply: give the full path.
   */
  path: string;
  /** How long shutdown waits for handlers still running after their 200. Default 10 000 ms. */
  drainTimeoutMs?: number;
}

/** Options of the module itself, next to the receiver's in `forRoot` and `forRootAsync`. */
export interface SmsWebhooksModuleExtras {
  /** Make the receiver injectable in every module without importing this one. Default false. */
  isGlobal?: boolean;
}

const built = new ConfigurableModuleBuilder<SmsWebhooksModuleOptions>({ moduleName: 'SmsWebhooks' })
  .setClassMethodName('forRoot')
  .setExtras<SmsWebhooksModuleExtras>({ isGlobal: false }, (definition, { isGlobal }) => ({
    ...definition,
    global: isGlobal === true,
  }))
  .build();

/**
 * The base class of `SmsWebhooksModule`, made by Nest's `ConfigurableModuleBuilder`: its static
 * `forRoot(options)` and `forRootAsync(options)` return the module's definition.
 */
export const SmsWebhooksModuleBase: ConfigurableModuleCls<
  SmsWebhooksModuleOptions,
  'forRoot',
  'create',
  SmsWebhooksModuleExtras
> = built.ConfigurableModuleClass;
export const SMS_WEBHOOKS_MODULE_OPTIONS = built.MODULE_OPTIONS_TOKEN;

/** `forRoot(options)`: the receiver's options, `path`, `drainTimeoutMs` and `isGlobal`. */
export type SmsWebhooksModuleForRootOptions = SmsWebhooksModuleOptions & Partial<SmsWebhooksModuleExtras>;
/** `forRootAsync({ imports, inject, useFactory })` (or `useClass` / `useExisting` with a `create()` method). */
export type SmsWebhooksModuleAsyncOptions = ConfigurableModuleAsyncOptions<
  SmsWebhooksModuleOptions,
  'create'
> &
  Partial<SmsWebhooksModuleExtras>;

function fail(message: string): never {
  throw optionError(OWNER, message);
}

/** The token of the options below (an internal provider). */
export const SPLIT_OPTIONS = '@sms-webhooks/nestjs:split-options';

export interface SplitOptions {
  receiver: ReceiverOptions;
  path: string;
  drainTimeoutMs: number;
}

/** The module's own options checked and taken off; the rest goes to createReceiver, which checks it. */
export function splitOptions(options: SmsWebhooksModuleOptions | undefined): SplitOptions {
  if (typeof options !== 'object' || options === null) {
    fail("SmsWebhooksModule.forRoot needs options: { secret, path: '/webhooks/sms' }.");
  }
  const { path, drainTimeoutMs: drainOption, ...receiver } = options;
  if (typeof path !== 'string' || !path.startsWith('/')) {
    fail(
      `the \`path\` option must be a route path starting with '/', such as '/webhooks/sms', got ${JSON.stringify(path)}.`,
    );
  }
  const drainTimeoutMs = drainTimeoutOption(OWNER, drainOption);
  return { receiver, path, drainTimeoutMs };
}
