// The bridge now lives in test/helpers; this re-export keeps packages/otel/test/servers.ts importing it
// until that file imports '../../../test/helpers/node-bridge.js' itself.
export * from '../helpers/node-bridge.js';
