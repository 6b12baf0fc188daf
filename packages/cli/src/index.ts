export { CliError } from './cli-error.js';
export type { CliIo } from './io.js';
export { createProgram, VERSION } from './program.js';
export { run } from './run.js';
