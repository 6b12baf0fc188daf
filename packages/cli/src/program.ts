import { Command } from 'commander';
import { registerAudit } from './commands/audit.js';
import { registerEmulator } from './commands/emulator.js';
import { registerFailed } from './commands/failed.js';
import { registerListen } from './commands/listen.js';
import { registerReplay } from './commands/replay.js';
import { registerSend } from './commands/send.js';
import { registerSign } from './commands/sign.js';
import { registerTrigger } from './commands/trigger.js';
import { registerWebhooks } from './commands/webhooks.js';
import type { CliIo } from './io.js';
import { redactUrls } from './redact.js';

/** The CLI's version, as `sms-webhooks --version` prints it. */
export const VERSION = '0.1.0';

/** How {@link createProgram} reports errors. */
export interface ProgramOptions {
  /** `--json` was given: commander prints nothing on stderr, `run` prints the error as JSON instead. */
  json?: boolean;
}

/**
 * The `sms-webhooks` command line as a commander `Command`, every command wired to `io` instead of the
 * process: `createProgram(io).parseAsync(argv, { from: 'user' })` runs one in-process (as the tests do).
 * A mistake the user can fix rejects with a {@link CliError}.
 */
export function createProgram(io: CliIo, options: ProgramOptions = {}): Command {
  const json = options.json ?? false;
  const program = new Command('sms-webhooks')
    .description('Sign, send and receive the SMS service webhooks locally.')
    .version(VERSION)
    // Set before adding commands: subcommands inherit both, so no command ever calls process.exit.
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout(s),
      // In JSON mode stderr must hold only the JSON error, not commander's text or a usage dump.
      writeErr: (s) => (json ? undefined : io.stderr(s)),
      // Commander's own message echoes the argument: a connection URL's password must not reach stderr.
      outputError: (s, write) => (json ? undefined : write(redactUrls(s))),
    })
    .showHelpAfterError(json ? false : '(add --help for usage)');
  registerListen(program, io);
  registerTrigger(program, io);
  registerEmulator(program, io);
  registerSign(program, io);
  registerSend(program, io);
  registerWebhooks(program, io);
  registerFailed(program, io);
  registerAudit(program, io);
  registerReplay(program, io);
  checkRequiredAfterUnknown(program);
  return program;
}

/**
 * Commander reports a missing required option before an unknown one, so `send --ulr …` said `--url` was
 * missing. The required options are checked here instead, after commander has refused unknown options.
 */
function checkRequiredAfterUnknown(program: Command): void {
  const all = (cmd: Command): Command[] => [cmd, ...cmd.commands.flatMap(all)];
  const required = new Map(all(program).map((cmd) => [cmd, cmd.options.filter((o) => o.mandatory)]));
  for (const options of required.values()) for (const option of options) option.makeOptionMandatory(false);
  program.hook('preAction', (_program, action) => {
    for (const option of required.get(action) ?? []) {
      if (action.getOptionValue(option.attributeName()) === undefined) {
        action.error(`error: required option '${option.flags}' not specified`, {
          code: 'commander.missingMandatoryOptionValue',
          exitCode: 2,
        });
      }
    }
  });
}
