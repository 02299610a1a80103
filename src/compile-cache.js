// `npm start` loads this first (node --import): Node keeps the modules it compiles, TypeScript
// stripped, in a cache in the data directory, so a later start neither strips the types again
// (which loads a WebAssembly compiler of some 20 MB that stays for the process's life) nor
// compiles from source. Plain JavaScript: a TypeScript file here would load that compiler.
// See docs/performance.md, Memory.
import module from 'node:module';
import path from 'node:path';

module.enableCompileCache?.(path.join(path.resolve(process.env.PARLEY_DATA_DIR ?? './data'), 'compile-cache'));
