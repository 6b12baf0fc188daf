import { CommanderError } from 'commander';
import { CliError } from './cli-error.js';
import { type CliIo, processIo } from './io.js';
import { createProgram } from './program.js';

/** Runs `sms-webhooks` with these arguments (without `node` and the script) and resolves the exit code. */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const program = createProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; usage mistakes were already printed by commander.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof CliError) {
      io.stderr(`error: ${error.message}\n`);
      return error.exitCode;
    }
    io.stderr(`error: ${(error as Error)?.message ?? String(error)}\n`);
    return 1;
  }
}
