import { describeReadmeCoverage, describeReadmeExamples } from './readme-examples.js';
import { READMES } from './readmes.js';
import { STORE_READMES } from './readmes-stores.js';

// The READMEs of core, the client, the emulator, the CLI, ops, the adapters and the root; the stores' in
// readme-examples-stores.test.ts, the examples' in readme-examples-examples.test.ts.
describeReadmeCoverage();
describeReadmeExamples(READMES.filter((r) => !STORE_READMES.includes(r)));
