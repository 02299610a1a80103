import type { ApiPlugin } from '../app.ts';

/**
 * The public API's areas, each a plugin registered under /api/v1.
 * An area adds itself here with one line.
 */
export const apiModules: ApiPlugin[] = [];
