/**
 * A new embedded data directory starts from an empty cluster that PGlite's initdb made once, saved beside this
 * file, instead of running initdb at the first start. PGlite's initdb runs in two WebAssembly instances of its
 * own beside the main one (and copies the main one's memory): a first start peaked near 640 MB against about 250 MB
 * for a start on an existing directory (docs/performance.md, Memory). A cluster is one PGlite version's: the file
 * is named by it, and with another version installed the first start runs initdb as before.
 *
 * After upgrading PGlite: `node src/platform/empty-cluster.ts` writes the new version's file
 * (src/platform/empty-cluster.test.ts fails until it exists).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';

/** The installed PGlite's version. */
export function pgliteVersion(): string {
  const entry = new URL(import.meta.resolve('@electric-sql/pglite'));
  return (JSON.parse(readFileSync(new URL('../package.json', entry), 'utf8')) as { version: string }).version;
}

/** Where the empty cluster of a PGlite version is kept. */
export function emptyClusterFile(version = pgliteVersion()): URL {
  return new URL(`./empty-cluster/pglite-${version}.tar.gz`, import.meta.url);
}

/**
 * Unpacks the empty cluster into a data directory that does not exist yet, when one was made by the installed
 * PGlite; otherwise leaves the directory to PGlite (initdb for a new one). Unpacked here rather than through PGlite's
 * `loadDataDir`, which keeps each file in a buffer of its own and left some 55 MB of freed memory in the C heap: here
 * the archive is one buffer and each file is written from a view of it. Into a directory beside the target, renamed
 * when complete, so an interrupted start never leaves half a cluster that looks like one.
 */
export async function unpackEmptyCluster(dataDir: string): Promise<boolean> {
  const file = emptyClusterFile();
  if (existsSync(dataDir) || !existsSync(file)) return false;
  const partial = `${dataDir}.unpacking`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  const archive = gunzipSync(readFileSync(file), { chunkSize: UNPACKED_BOUND });
  for (const entry of tarEntries(archive)) {
    const target = path.join(partial, entry.name);
    if (!target.startsWith(partial + path.sep)) throw new Error(`The empty cluster names a path outside its directory: ${entry.name}`);
    if (entry.type === 'directory') await mkdir(target, { recursive: true });
    else {
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, entry.data);
    }
  }
  await rename(partial, dataDir);
  return true;
}

/** Above the unpacked archive's size (about 40 MB): gunzip writes it into one buffer. */
const UNPACKED_BOUND = 128 * 1024 * 1024;

interface TarEntry {
  name: string;
  type: 'file' | 'directory';
  data: Uint8Array;
}

/** The entries of a ustar archive as PGlite's dumpDataDir writes it: regular files and directories, views of the archive. */
function* tarEntries(archive: Buffer): Generator<TarEntry> {
  const BLOCK = 512;
  for (let offset = 0; offset + BLOCK <= archive.length; ) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) return; // the end-of-archive blocks
    const field = (start: number, length: number) => header.toString('latin1', start, start + length).replace(/\0.*$/s, '');
    const prefix = field(345, 155);
    const name = (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100)).replace(/^\/+/, '');
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const flag = field(156, 1);
    const data = archive.subarray(offset + BLOCK, offset + BLOCK + size);
    if (flag === '5') yield { name, type: 'directory', data };
    else if (flag === '0' || flag === '') yield { name, type: 'file', data };
    else throw new Error(`The empty cluster has an entry of a type not unpacked here (${flag}): ${name}`);
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
}

/** Runs initdb once (PGlite's defaults, as a first start would) and saves the cluster for the installed version. */
export async function writeEmptyCluster(): Promise<URL> {
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = await PGlite.create();
  try {
    const file = emptyClusterFile();
    writeFileSync(file, Buffer.from(await (await pglite.dumpDataDir('gzip')).arrayBuffer()));
    return file;
  } finally {
    await pglite.close();
  }
}

if (import.meta.main) {
  console.log(`Wrote ${(await writeEmptyCluster()).pathname} (remove the file of the version before by hand)`);
}
