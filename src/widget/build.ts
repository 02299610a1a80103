/**
 * Builds the widget from src/widget with esbuild, in memory, once per process (at
 * the first request for it; about a tenth of a second): the loader, served short-cached at
 * /widget.js, and the widget module, served long-cached under a content-hashed name.
 * Nothing built is committed or written to disk.
 */
import { readFile } from 'node:fs/promises';
import { BROWSER_BUNDLE, buildOncePerProcess, builtAsset, contentHash, type BuiltAsset, type EsbuildBuild } from '../platform/bundle.ts';

export type WidgetAsset = BuiltAsset;

export interface WidgetBuild {
  loader: WidgetAsset;
  module: WidgetAsset;
}

const here = new URL('.', import.meta.url).pathname;
const JS = 'text/javascript; charset=utf-8';

export const buildWidget: () => Promise<WidgetBuild> = buildOncePerProcess(bundleBoth);

async function bundleBoth(build: EsbuildBuild): Promise<WidgetBuild> {
  const module = await bundle(build, `${here}app.ts`, 'esm', {});
  const modulePath = `/widget/app-${contentHash(module)}.js`;
  const loaderCss = await readFile(`${here}launcher.css`, 'utf8');
  const loader = await bundle(build, `${here}loader.ts`, 'iife', { WIDGET_MODULE: JSON.stringify(modulePath), LOADER_CSS: JSON.stringify(minifyCss(loaderCss)) });
  return { loader: builtAsset('/widget.js', loader, JS), module: builtAsset(modulePath, module, JS) };
}

async function bundle(build: EsbuildBuild, entry: string, format: 'esm' | 'iife', define: Record<string, string>): Promise<Buffer> {
  const result = await build({ ...BROWSER_BUNDLE, entryPoints: [entry], format, define, loader: { '.css': 'text' } });
  return Buffer.from(result.outputFiles![0]!.contents);
}

function minifyCss(text: string): string {
  return text.replace(/\s*\n\s*/g, '');
}
