import type { ReadmeUnderTest } from './readmes.js';

/** The store and queue packages' READMEs and the examples' (kept apart from readmes.ts so each can grow alone). */
export const STORE_READMES: ReadmeUnderTest[] = [];
