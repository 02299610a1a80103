import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './db.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
// Any fixed number: every process that migrates takes the same advisory lock first.
const MIGRATION_LOCK = 827_001;

/** Applies the SQL files in migrations/ in name order, each once, each in its own transaction. */
export async function migrate(database: Database): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
  return database.session(async (session) => {
  await session.executeSql('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await session.exec('create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())');
    const done = new Set((await session.executeSql('select name from schema_migrations')).rows.map((r) => r.name as string));
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      const text = await readFile(path.join(MIGRATIONS_DIR, file), 'utf8');
      await session.exec(`begin;\n${text}\n;insert into schema_migrations (name) values ('${file.replace(/'/g, "''")}');\ncommit;`);
      applied.push(file);
    }
    return applied;
  } catch (error) {
    await session.exec('rollback').catch(() => {});
    throw error;
  } finally {
    await session.executeSql('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
  });
}
