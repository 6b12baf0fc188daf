/**
 * Runs one suite in a fresh process (`--expose-gc`, no JIT state from the others) and posts its
 * SuiteResult to the parent: `node --expose-gc --import tsx suite-child.ts <suite> <profile>`.
 */
import { FULL, QUICK, TINY } from './profiles.js';
import { runSuite, type SuiteId } from './suites/index.js';

const [id, profileName] = process.argv.slice(2) as [SuiteId, string];
const profile = { full: FULL, quick: QUICK, tiny: TINY }[profileName] ?? QUICK;

runSuite(id, profile).then(
  (result) => process.send?.({ type: 'result', result }, () => process.exit(0)),
  (error) => {
    console.error(error);
    process.send?.({ type: 'result', error: String(error?.stack ?? error) }, () => process.exit(1));
  },
);
