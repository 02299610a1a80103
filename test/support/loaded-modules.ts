/**
 * Loaded with `node --import ./test/support/loaded-modules.ts`: records every module the
 * process loads and, on SIGUSR2, writes the packages among them (one a line) to the file
 * named by PARLEY_LOADED_MODULES_FILE. Tests use it to check what a role has loaded once started.
 */
import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';

const loaded = new Set<string>();

registerHooks({
  load(url, context, nextLoad) {
    loaded.add(url);
    return nextLoad(url, context);
  },
});

/** The package a module URL belongs to (`@scope/name` or `name`), or the project's own path. */
export function packageOf(url: string): string {
  const match = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/g);
  if (match) return match[match.length - 1]!.replace('node_modules/', '');
  return url.replace(/^file:\/\/.*?\/(src|bin)\//, '$1/');
}

const file = process.env.PARLEY_LOADED_MODULES_FILE;
if (file) {
  process.on('SIGUSR2', () => {
    const names = new Set([...loaded].map(packageOf));
    // Node's own copy of undici is loaded inside Node (no hook sees it): named as `node:undici`.
    if ((process as unknown as { moduleLoadList: string[] }).moduleLoadList.some((entry) => entry.endsWith('internal/deps/undici/undici'))) names.add('node:undici');
    writeFileSync(file, [...names].sort().join('\n') + '\n');
  });
}
