import { Command } from 'commander';
import { registerEmulator } from './commands/emulator.js';
import { registerSend } from './commands/send.js';
import { registerSign } from './commands/sign.js';
import { registerWebhooks } from './commands/webhooks.js';
import type { CliIo } from './io.js';

export const VERSION = '0.1.0';

export function createProgram(io: CliIo): Command {
  const program = new Command('sms-webhooks')
    .description('Sign, send and receive the SMS service webhooks locally.')
    .version(VERSION)
    // Set before adding commands: subcommands inherit both, so no command ever calls process.exit.
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) })
    .showHelpAfterError('(add --help for usage)');
  registerEmulator(program, io);
  registerSign(program, io);
  registerSend(program, io);
  registerWebhooks(program, io);
  return program;
}
