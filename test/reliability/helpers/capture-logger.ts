import type { Logger } from '@sms-webhooks/core';

/** Keeps every logged line (with error messages and stacks), so tests can search what was logged. */
export function captureLogger(): Logger & { lines: string[]; text(): string } {
  const lines: string[] = [];
  const format = (a: unknown): string => {
    if (a instanceof Error) return `${a.name}: ${a.message}\n${a.stack ?? ''}`;
    if (typeof a === 'string') return a;
    try {
      return JSON.stringify(a);
    } catch {
      return String(a);
    }
  };
  const keep =
    (level: string) =>
    (...args: unknown[]) => {
      lines.push(`${level} ${args.map(format).join(' ')}`);
    };
  return { lines, warn: keep('warn'), error: keep('error'), text: () => lines.join('\n') };
}
