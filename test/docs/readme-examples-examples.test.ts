import { describeReadmeExamples } from './readme-examples.js';
import { STORE_READMES } from './readmes-stores.js';

// The READMEs of examples/.
describeReadmeExamples(STORE_READMES.filter((r) => !r.path.startsWith('packages/')));
