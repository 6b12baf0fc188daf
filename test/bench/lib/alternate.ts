import { median } from './stats.js';

export interface Contender {
  name: string;
  /** One operation; the result is kept so the work cannot be optimised away. */
  fn: () => unknown;
}

export interface AlternateOptions {
  rounds: number;
  /** Length of one timed window per contender and round. */
  roundMs: number;
  /** Untimed run per contender before the first round (JIT, caches). */
  warmupMs: number;
}

export interface Measured {
  name: string;
  /** Operations per second, one per round. */
  samples: number[];
  median: number;
}

let sink: unknown;
/** Read by nobody; exported so the optimiser cannot prove the stores dead. */
export function lastResult(): unknown {
  return sink;
}

const gc = (globalThis as { gc?: () => void }).gc;

type Window = (fn: () => unknown, ms: number) => number;

const WINDOW_SOURCE = `
  return function window(fn, ms) {
    const end = performance.now() + ms;
    let ops = 0;
    let batch = 1;
    const start = performance.now();
    let now = start;
    while (now < end) {
      const before = now;
      for (let i = 0; i < batch; i++) keep(fn());
      ops += batch;
      now = performance.now();
      // Grow the batch until one takes about 0.2 ms, so reading the clock costs nothing measurable.
      if (now - before < 0.2 && batch < 65536) batch *= 2;
    }
    return (ops * 1000) / (now - start);
  };
`;

/**
 * A timing loop of its own for each contender, compiled from source so V8 keeps separate type
 * feedback: one shared loop would see every contender's function at its call site, turn megamorphic,
 * and make each result depend on who else ran and in which order.
 */
function makeWindow(): Window {
  const keep = (value: unknown) => {
    sink = value;
  };
  return new Function('keep', WINDOW_SOURCE)(keep) as Window;
}

/**
 * Runs every contender in turn for `roundMs`, `rounds` times, rotating who goes first each round, so
 * drift in the machine (other processes, thermal) lands on all of them alike. Medians, not means.
 */
export function alternate(contenders: readonly Contender[], options: AlternateOptions): Measured[] {
  const windows = contenders.map(() => makeWindow());
  for (const [i, c] of contenders.entries()) windows[i]!(c.fn, options.warmupMs);
  const samples = contenders.map(() => [] as number[]);
  for (let round = 0; round < options.rounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const i = (round + k) % contenders.length;
      gc?.();
      samples[i]!.push(windows[i]!(contenders[i]!.fn, options.roundMs));
    }
  }
  return contenders.map((c, i) => ({ name: c.name, samples: samples[i]!, median: median(samples[i]!) }));
}
