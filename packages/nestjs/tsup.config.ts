import { packageBuild } from '../../tsup.base.js';

// Nest's decorators need experimentalDecorators; see tsconfig.build.json.
export default packageBuild(['src/index.ts'], { tsconfig: './tsconfig.build.json' });
