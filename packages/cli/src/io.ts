import { readFile } from 'node:fs/promises';

/** Everything the CLI touches outside itself, so tests can run it in-process. */
export interface CliIo {
  /** Writes command output (`process.stdout.write` by default). */
  stdout(text: string): void;
  /** Writes diagnostics and errors (`process.stderr.write` by default). */
  stderr(text: string): void;
  /** Where `SMS_API_KEY`, `SMS_API_BASE_URL` and the webhook secret are read from (`process.env`). */
  env: Record<string, string | undefined>;
  /** Ends long-running commands (`emulator`); default SIGINT / SIGTERM. */
  signal?: AbortSignal;
  /** Reads standard input to the end; used by `sign` when no payload is given. */
  readStdin?(): Promise<string>;
  /** Reads a file as UTF-8 (`sign --file`); default `fs.readFile`. */
  readFile?(path: string): Promise<string>;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A reader that went away (`sms-webhooks send --help | head -1`) is not an error: stop writing and end
 * quietly, as `git log | head -1` does, instead of crashing on an unhandled EPIPE.
 */
function quietOnClosedPipe(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    closed = true;
    process.exit(process.exitCode ?? 0);
  });
  return (text) => {
    if (!closed) stream.write(text);
  };
}

export function processIo(): Required<Omit<CliIo, 'signal'>> {
  return {
    stdout: quietOnClosedPipe(process.stdout),
    stderr: quietOnClosedPipe(process.stderr),
    env: process.env,
    readStdin: () => readAll(process.stdin),
    readFile: (path) => readFile(path, 'utf8'),
  };
}
