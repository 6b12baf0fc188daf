/**
 * Timer tolerance for the scaled retry schedule: a wait never ends early (1 ms of clock rounding, plus
 * 1 ms for timestamps taken in different places) and may end late by up to LATE_MS on a loaded
 * two-core CI machine.
 */
export const EARLY_MS = 2;
export const LATE_MS = 250;

/** The spec's first two waits (1 min, 5 min) at `timeScale`, in ms. */
export function scaledWaits(timeScale: number): [number, number] {
  return [60_000 * timeScale, 300_000 * timeScale];
}
