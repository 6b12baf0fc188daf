import type { CliIo } from './io.js';

/**
 * How the reader runs this CLI, for the commands it suggests: `pnpm sms-webhooks` when the sms-webhooks
 * workspace's root script started it (a clone, where `npx sms-webhooks` finds nothing to run), else
 * `npx sms-webhooks` (installed from npm).
 */
export function cliCommand(io: CliIo): string {
  return io.env.npm_package_name === 'sms-webhooks-workspace' && io.env.npm_lifecycle_event === 'sms-webhooks'
    ? 'pnpm sms-webhooks'
    : 'npx sms-webhooks';
}
