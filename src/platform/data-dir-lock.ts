import { mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * PGlite is one process's database: two processes on one data directory
 * corrupt it. The first process writes its pid to a lock file created
 * exclusively; a later one refuses to start while that pid lives.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, 'parley.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
      if (holder && holder !== process.pid && isAlive(holder)) {
        throw new Error(
          `Another Parley process (pid ${holder}) is using the data directory ${dataDir}. ` +
            'The embedded database serves one process only: stop the other one, choose another PARLEY_DATA_DIR, or use DATABASE_URL for several processes.',
        );
      }
      await rm(lockPath, { force: true }); // left by a process that died
    }
  }
  throw new Error(`Could not lock the data directory ${dataDir}.`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
