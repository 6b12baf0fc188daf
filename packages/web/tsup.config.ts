import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  splitting: false,
  // Only this package's sources: with none set, the program takes in every package's dist/ mid-build.
  tsconfig: 'tsconfig.build.json',
});
