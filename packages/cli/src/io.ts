import { readFile } from 'node:fs/promises';

/** Everything the CLI touches outside itself, so tests can run it in-process. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  /** Ends long-running commands (`emulator`); default SIGINT / SIGTERM. */
  signal?: AbortSignal;
  /** Reads standard input to the end; used by `sign` when no payload is given. */
  readStdin?(): Promise<string>;
  readFile?(path: string): Promise<string>;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export function processIo(): Required<Omit<CliIo, 'signal'>> {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    readStdin: () => readAll(process.stdin),
    readFile: (path) => readFile(path, 'utf8'),
  };
}
