/**
 * Builds the dashboard (src/dashboard, docs/dashboard.md) with esbuild, in memory, once per
 * process at the first request for /app: the entry module and its style sheet, and one chunk
 * per page loaded when the page is first opened (code splitting), every file under a
 * content-hashed name below /app/assets/ (cached for a year), and the HTML page that loads them.
 */
import path from 'node:path';
import { BROWSER_BUNDLE, buildOncePerProcess, builtAsset, CONTENT_TYPES, type BuiltAsset, type EsbuildBuild } from '../platform/bundle.ts';

export const ASSETS_PREFIX = '/app/assets/';

export interface DashboardBuild {
  /** Every asset by its path (/app/assets/…). */
  assets: Map<string, BuiltAsset>;
  /** The entry's script and style sheet, and the chunks it imports statically (preloaded). */
  entry: { script: string; style: string | undefined; preload: string[] };
  /** What the first load of /app downloads: the entry, its static imports and its style sheet. */
  firstLoad: BuiltAsset[];
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
  return { assets, entry: { script, style, preload }, firstLoad };
}
