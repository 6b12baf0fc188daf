/**
 * Runs every item once per round, each round starting one item further along, so drift in a shared
 * machine lands on all of them alike. `k` is the item's place within its round.
 */
export async function inRotation<T>(
  rounds: number,
  items: readonly T[],
  run: (item: T, round: number, k: number) => Promise<unknown>,
): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < items.length; k++) await run(items[(round + k) % items.length]!, round, k);
  }
}
