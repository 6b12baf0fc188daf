import type { CliIo } from './io.js';

export interface OutputOptions {
  json?: boolean;
}

/** `--json` prints the value as JSON; otherwise `text()` gives the human lines. */
export function print(
  io: CliIo,
  options: OutputOptions,
  value: unknown,
  text: () => string | string[],
): void {
  if (options.json) {
    io.stdout(`${JSON.stringify(value, null, 2)}\n`);
    return;
  }
  const lines = text();
  io.stdout(`${Array.isArray(lines) ? lines.join('\n') : lines}\n`);
}
