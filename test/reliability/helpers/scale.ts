/** `pnpm test:soak` sets SOAK=1: the full figures. The normal suite runs the same tests scaled down. */
export const SOAK = process.env.SOAK === '1';

/** `ci` in the normal suite, `soak` under SOAK=1. */
export function scaled(ci: number, soak: number): number {
  return SOAK ? soak : ci;
}

/** One line per measured figure, easy to grep out of the test output for the README. */
export function report(name: string, figures: Record<string, string | number>): void {
  const text = Object.entries(figures)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  console.log(`[reliability] ${name} (${SOAK ? 'soak' : 'ci'} scale): ${text}`);
}
