import { type CliIo, run } from '@sms-webhooks/cli';

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
    env,
    readStdin: async () => '',
    ...extra,
  });
  return { code, stdout, stderr };
}
