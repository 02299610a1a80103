/**
 * HTTP's reason phrases, from Node's http module without an ESM import of it: an `import` of `node:http` reads
 * every export to build the module's facade, and the lazy `WebSocket`, `CloseEvent` and `MessageEvent` among them
 * load Node's own copy of undici (about 13 MB resident in a bare process) that nothing here then uses
 * (docs/performance.md, Memory). `process.getBuiltinModule` gives the CommonJS module, whose lazy exports stay lazy.
 */
export const STATUS_CODES: Record<number, string | undefined> = process.getBuiltinModule('node:http').STATUS_CODES;
