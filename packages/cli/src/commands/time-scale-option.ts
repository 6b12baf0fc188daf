import { Option } from 'commander';
import { positiveNumber } from '../options.js';

/** `--time-scale` of the emulator that `emulator` and `listen` start. A new Option for each command. */
export function timeScaleOption(): Option {
  return new Option('--time-scale <factor>', 'multiply retry waits, e.g. 1/60 turns 1 min into 1 s')
    .default(1)
    .argParser(positiveNumber('--time-scale'));
}
