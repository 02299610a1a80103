import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './db.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
// Any fixed number: every process that migrates takes the same advisory lock first.
const MIGRATION_LOCK = 827_001;

type Session = Pick<Database, 'executeSql' | 'exec'>;

/**
 * Runs schema work holding the migrations' advisory lock, so processes started together
 * on a fresh database do it one after the other (the job queue's install takes it too:
 * its CREATE SCHEMA IF NOT EXISTS fails in all but one of several processes at once).
 */
export async function underMigrationLock<T>(database: Database, work: (session: Session) => Promise<T>): Promise<T> {
  return database.session(async (session) => {
    await session.executeSql('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      return await work(session);
    } finally {
      await session.executeSql('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  });
}

/** Applies the SQL files in migrations/ in name order, each once, each in its own transaction. */
export async function migrate(database: Database): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
  return underMigrationLock(database, async (session) => {
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
    }
  });
}
