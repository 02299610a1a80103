/**
 * What the service's browser code shares to be built (the widget, src/widget/build.ts,
 * and the dashboard, src/dashboard/build.ts): esbuild run in memory, once per
 * process at the first request that needs it, its service process stopped after;
 * content-hashed assets with their ETag. Nothing built is committed or written to disk.
 */
import { createHash } from 'node:crypto';
import type * as Esbuild from 'esbuild';

export type EsbuildBuild = typeof Esbuild.build;

/** One file as served. */
export interface BuiltAsset {
  /** The path it is served at. */
  path: string;
  body: Buffer;
  type: string;
  etag: string;
}

/** The browsers both target. */
export const BROWSER_TARGET = ['chrome100', 'firefox100', 'safari15.4'];

/**
 * A build run at most once per process: the first call starts it, later calls share it;
 * a failed build is not kept, so the next call tries again.
 */
export function buildOncePerProcess<T>(build: (esbuild: EsbuildBuild) => Promise<T>): () => Promise<T> {
  let built: Promise<T> | undefined;
  return () => {
    built ??= withEsbuild(build).catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    return built;
  };
}

/** esbuild (and the service process its API starts) only for the build, then stopped. */
async function withEsbuild<T>(build: (esbuild: EsbuildBuild) => Promise<T>): Promise<T> {
  const esbuild = await import('esbuild');
  try {
    return await build(esbuild.build);
  } finally {
    await esbuild.stop();
  }
}

/** The options every bundle of browser code uses: minified, in memory, for BROWSER_TARGET. */
export const BROWSER_BUNDLE: Esbuild.BuildOptions = {
  bundle: true,
  minify: true,
  target: BROWSER_TARGET,
  write: false,
  legalComments: 'none',
  logLevel: 'silent',
};

export function contentHash(body: Buffer | string, length = 12): string {
  return createHash('sha256').update(body).digest('hex').slice(0, length);
}

export function builtAsset(path: string, body: Buffer, type: string): BuiltAsset {
  return { path, body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` };
}

export const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};
