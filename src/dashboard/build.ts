/**
 * Builds the dashboard (src/dashboard, docs/dashboard.md) with esbuild, in memory, once per
 * process at the first request for /app: the entry module and its style sheet, and one chunk
 * per page loaded when the page is first opened (code splitting), every file under a
 * content-hashed name below /app/assets/ (cached for a year), and the HTML page that loads them.
 */
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type * as Esbuild from 'esbuild';
import { BROWSER_BUNDLE, buildOncePerProcess, builtAsset, CONTENT_TYPES, type BuiltAsset, type EsbuildBuild } from '../platform/bundle.ts';
import { pageRouteOf, type Route } from './routes.ts';
import type { Language } from './types.ts';

export const ASSETS_PREFIX = '/app/assets/';

export interface DashboardBuild {
  /** Every asset by its path (/app/assets/…). */
  assets: Map<string, BuiltAsset>;
  /** The entry's script and style sheet, and the chunks it imports statically (preloaded). */
  entry: { script: string; style: string | undefined; preload: string[] };
  /** What the first load of /app downloads: the entry, its static imports and its style sheet. */
  firstLoad: BuiltAsset[];
  /** The chunks a page (or a catalogue) needs beyond the first load (its own first, then what it imports), by its module as routes.ts (i18n/index.ts) names it ('./pages/…', './i18n/en.ts'). */
  pageChunks: Map<string, string[]>;
  /** Each language's catalogue chunk (i18n/index.ts loads the one in use; the HTML preloads it). */
  languageChunks: Record<Language, string[]>;
}

const here = new URL('.', import.meta.url).pathname;
const OUT = '/out';

export const buildDashboard: () => Promise<DashboardBuild> = buildOncePerProcess(bundle);

async function bundle(build: EsbuildBuild): Promise<DashboardBuild> {
  const result = await build({
    ...BROWSER_BUNDLE,
    entryPoints: { main: `${here}main.tsx` },
    format: 'esm',
    splitting: true,
    outdir: OUT,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    publicPath: ASSETS_PREFIX,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    metafile: true,
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const assets = new Map<string, BuiltAsset>();
  for (const file of result.outputFiles!) {
    const name = path.relative(OUT, file.path);
    const type = CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream';
    assets.set(`${ASSETS_PREFIX}${name}`, builtAsset(`${ASSETS_PREFIX}${name}`, Buffer.from(file.contents), type));
  }
  const outputs = result.metafile!.outputs;
  const [entryFile, entryMeta] = Object.entries(outputs).find(([file, meta]) => meta.entryPoint?.endsWith('main.tsx') && file.endsWith('.js'))!;
  const served = (file: string) => `${ASSETS_PREFIX}${path.relative(OUT, path.resolve(file))}`;
  const preload = entryMeta.imports.filter((i) => i.kind === 'import-statement').map((i) => served(i.path));
  const script = served(entryFile);
  const style = entryMeta.cssBundle ? served(entryMeta.cssBundle) : undefined;
  const firstLoad = [script, ...preload, ...(style ? [style] : [])].map((p) => assets.get(p)!);
  const pageChunks = pageChunksOf(outputs, new Set([script, ...preload]), served);
  const languageChunks = { en: pageChunks.get('./i18n/en.ts')!, nl: pageChunks.get('./i18n/nl.ts')! };
  return { assets, entry: { script, style, preload }, firstLoad, pageChunks, languageChunks };
}

type Outputs = Esbuild.Metafile['outputs'];

/** Each lazily loaded page's chunk and the chunks it imports statically (at any depth), leaving out those of the first load. */
function pageChunksOf(outputs: Outputs, firstLoad: Set<string>, served: (file: string) => string): Map<string, string[]> {
  const pages = new Map<string, string[]>();
  for (const [file, meta] of Object.entries(outputs)) {
    if (!meta.entryPoint || !file.endsWith('.js') || meta.entryPoint.endsWith('main.tsx')) continue;
    const chunks: string[] = [];
    const visit = (output: string) => {
      const chunk = served(output);
      if (chunks.includes(chunk) || firstLoad.has(chunk)) return;
      chunks.push(chunk);
      for (const imported of outputs[output]!.imports) if (imported.kind === 'import-statement') visit(imported.path);
    };
    visit(file);
    pages.set(`./${path.relative(here, path.resolve(meta.entryPoint))}`, chunks);
  }
  return pages;
}

/**
 * The module a route's page is, as its load function names it (`() => import('./pages/…')`):
 * esbuild splits a page into its own chunk only for an import() of a literal path, so the
 * routes table stays the one place that names each page's module and this reads it back.
 */
export function pageModuleOf(route: Route): string | undefined {
  return route.load && /import\(\s*['"]([^'"]+)['"]\s*\)/.exec(String(route.load))?.[1];
}

/** The chunks to preload beside the first load for the page an address opens (none for an unknown address). */
export function pageChunksFor(build: DashboardBuild, pathname: string): string[] {
  const route = pageRouteOf(pathname);
  const module = route && pageModuleOf(route);
  return (module && build.pageChunks.get(module)) || [];
}

/** Below this an asset is sent as it is: gzip's header and the round trip cost more than it saves. */
const GZIP_FROM_BYTES = 1024;
const gzipAsync = promisify(gzip);
const gzippedAssets = new WeakMap<BuiltAsset, Promise<BuiltAsset | undefined>>();

/**
 * The asset gzipped (its own ETag), made the first time it is asked for and kept; undefined for one
 * too small to gain. Made on demand, not with the build, so the first page is not held up by all of them.
 */
export function gzippedAsset(asset: BuiltAsset): Promise<BuiltAsset | undefined> {
  let gzipped = gzippedAssets.get(asset);
  if (!gzipped) {
    gzipped = asset.body.length < GZIP_FROM_BYTES ? Promise.resolve(undefined) : gzipAsync(asset.body, { level: 9 }).then((body) => builtAsset(asset.path, body, asset.type));
    gzippedAssets.set(asset, gzipped);
  }
  return gzipped;
}
