import { platform as current } from './node.js';
import type { Platform } from './types.js';

/**
 * The platform this build runs on. The Web build (see ../../../web-platform.ts) resolves './node.js' above
 * to './web.js': the one place the two builds differ.
 */
export const platform: Platform = current;

export type { Platform, RawBody, SignFunction } from './types.js';
