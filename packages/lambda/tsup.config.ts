import { packageBuild } from '../../tsup.base.js';

// Only this package's sources: with none set, the program takes in every package's dist/ mid-build.
export default packageBuild(['src/index.ts'], { tsconfig: 'tsconfig.build.json' });
