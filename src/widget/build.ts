/**
 * Builds the widget from src/widget with esbuild, in memory, once per process (at
 * the first request for it; about a tenth of a second): the loader, served short-cached at
 * /widget.js, and the widget module, served long-cached under a content-hashed name.
 * Nothing built is committed or written to disk.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export interface WidgetAsset {
  /** The path it is served at. */
  path: string;
  body: Buffer;
  type: string;
  etag: string;
}

export interface WidgetBuild {
  loader: WidgetAsset;
  module: WidgetAsset;
}

const here = new URL('.', import.meta.url).pathname;
const TARGET = ['chrome100', 'firefox100', 'safari15.4'];

let built: Promise<WidgetBuild> | undefined;

export function buildWidget(): Promise<WidgetBuild> {
  // A failed build is not kept: the next request tries again.
  built ??= buildOnce().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

async function buildOnce(): Promise<WidgetBuild> {
  // esbuild (and the service process its API starts) only for the build, then stopped.
  const esbuild = await import('esbuild');
  try {
    return await bundleBoth(esbuild.build);
  } finally {
    await esbuild.stop();
  }
}

async function bundleBoth(build: typeof import('esbuild').build): Promise<WidgetBuild> {
  const module = await bundle(build, `${here}app.ts`, 'esm', {});
  const hash = createHash('sha256').update(module).digest('hex').slice(0, 12);
  const modulePath = `/widget/app-${hash}.js`;
  const loaderCss = await readFile(`${here}launcher.css`, 'utf8');
  const loader = await bundle(build, `${here}loader.ts`, 'iife', { WIDGET_MODULE: JSON.stringify(modulePath), LOADER_CSS: JSON.stringify(minifyCss(loaderCss)) });
  return { loader: asset('/widget.js', loader), module: asset(modulePath, module) };
}

async function bundle(build: typeof import('esbuild').build, entry: string, format: 'esm' | 'iife', define: Record<string, string>): Promise<Buffer> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format,
    target: TARGET,
    write: false,
    define,
    loader: { '.css': 'text' },
    legalComments: 'none',
    logLevel: 'silent',
  });
  return Buffer.from(result.outputFiles[0]!.contents);
}

function asset(path: string, body: Buffer): WidgetAsset {
  return { path, body, type: 'text/javascript; charset=utf-8', etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` };
}

function minifyCss(text: string): string {
  return text.replace(/\s*\n\s*/g, '');
}
