import type { CliIo } from './io.js';

// C0 controls (ESC, BEL, CR, BS…), DEL and C1 controls (CSI as one code point…), which a terminal acts on,
// and the bidirectional overrides and isolates, which reorder what it shows ("Trojan Source").
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this finds.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above, but line ends and tabs stay.
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function shown(c: string): string {
  const code = c.charCodeAt(0);
  return NAMED[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`);
}

/**
 * Text from an event or an error, made safe to show in a terminal: every control character as a visible
 * escape (`\x1b`, `\r`, `\u202e`), so a message's content cannot retitle the terminal, erase lines, plant a
 * hyperlink or start a line of its own. For one table cell or one line of text.
 */
export function terminalText(text: string): string {
  return text.replace(CONTROLS, shown);
}

/** Everything the CLI writes for a person (not `--json`): line ends and tabs kept, other controls escaped. */
export function terminalIo(io: CliIo): CliIo {
  const safe = (text: string) => text.replace(CONTROLS_BUT_LINES, shown);
  return { ...io, stdout: (text) => io.stdout(safe(text)), stderr: (text) => io.stderr(safe(text)) };
}
