import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliIo, run } from '@sms-webhooks/cli';

/** One state file per test file, so `send --id` and `listen` never touch the real ~/.local/state. */
export const stateFile = join(mkdtempSync(join(tmpdir(), 'sms-webhooks-cli-')), 'state.json');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with its own environment and captured output. */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined> = {},
  extra: Partial<CliIo> = {},
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    stdout: (s) => {
      stdout += s;
    },
    stderr: (s) => {
      stderr += s;
    },
    env: { SMS_WEBHOOKS_STATE_FILE: stateFile, ...env },
    readStdin: async () => '',
    ...extra,
  });
  return { code, stdout, stderr };
}
