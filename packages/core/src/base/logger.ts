/** Satisfied by `console`, pino, winston and most others. */
export interface Logger {
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}
