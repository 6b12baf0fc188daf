import { describeError, wantsJson } from './error-output.js';
import { type CliIo, processIo } from './io.js';
import { createProgram } from './program.js';
import { terminalIo } from './terminal-text.js';

/**
 * Runs `sms-webhooks` with these arguments (without `node` and the script) and resolves the exit code:
 * 0 success, 1 an error, 2 a usage mistake. With `--json`, an error is one JSON line on stderr.
 */
export async function run(argv: readonly string[], given: CliIo = processIo()): Promise<number> {
  const json = wantsJson(argv);
  // What a person reads shows no raw control character from an event or an error; JSON escapes its own.
  const io = json ? given : terminalIo(given);
  const program = createProgram(io, { json });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    const report = describeError(error);
    if (!report) return 0;
    if (json) io.stderr(`${JSON.stringify({ error: report.json })}\n`);
    else if (report.text !== undefined) io.stderr(`error: ${report.text}\n`);
    return report.exitCode;
  }
}
