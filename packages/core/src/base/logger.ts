/** Satisfied by `console`, pino, winston and most others. */
export interface Logger {
  /** Something the app should look at: a refused delivery (sampled), a slow store, an option that will not do what it seems. */
  warn(...args: unknown[]): void;
  /** Something failed: a handler, a store operation, an error hook. */
  error(...args: unknown[]): void;
}
