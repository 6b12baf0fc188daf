import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  splitting: false,
  // Nest's decorators need experimentalDecorators; see tsconfig.build.json.
  tsconfig: './tsconfig.build.json',
});
