export { CliError, type CliErrorOptions } from './cli-error.js';
export type { CliIo } from './io.js';
export { createProgram, type ProgramOptions, VERSION } from './program.js';
export { run } from './run.js';
