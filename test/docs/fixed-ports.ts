import { createServer, type Server } from 'node:net';

/** A variable's default (`process.env.X ?? …`, `Deno.env.get('X') ?? …`, `${X:-…}`): what a reader gets unset. */
const DEFAULTS = /\?\?\s*('[^'\n]*'|"[^"\n]*"|`[^`\n]*`|\d+)|:-[^}\n]*\}/g;

/** A port a program listens on or a request goes to, written as a number. */
const FIXED =
  /(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\]):(\d{2,5})\b|\bport:\s*(\d{2,5})\b|\.(?:listen|serve)\(\s*(\d{2,5})\b|\bPORT=(\d{2,5})\b|--port[= ](\d{2,5})\b/g;

/** A port variable's default: `PORT ?? 3000`, `PORT') ?? 8000`, `${RECEIVER_PORT:-3001}`. */
const PORT_DEFAULT = /PORT\W{0,4}\?\?\s*'?(\d{2,5})\b|PORT:-(\d{2,5})\}/g;

const numbers = (code: string, pattern: RegExp) =>
  [...code.matchAll(pattern)].map((m) => Number(m.slice(1).find((g) => g !== undefined)));

/** The ports `code` names other than as a variable's default: with another program on one, it fails. */
export function fixedPorts(code: string): number[] {
  return numbers(code.replace(DEFAULTS, ''), FIXED);
}

/** The ports `code` falls back to when its port variable is unset. */
export function defaultPorts(code: string): number[] {
  return numbers(code, PORT_DEFAULT);
}

/**
 * Ports a developer's machine often has busy (a dev server on 3000, an emulator on the CLI's default
 * 4010), taken by a server that drops every connection while a README runs: a block that listens on one
 * gets EADDRINUSE, a request sent to one fails. A port some other program holds already is busy anyway.
 */
export async function holdPorts(ports: Iterable<number>): Promise<() => Promise<void>> {
  const held: Server[] = [];
  for (const port of new Set(ports)) {
    const server = createServer((socket) => socket.destroy());
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, () => resolve(true));
    });
    if (bound) held.push(server);
  }
  return async () => {
    await Promise.all(held.map((s) => new Promise((resolve) => s.close(resolve))));
  };
}
