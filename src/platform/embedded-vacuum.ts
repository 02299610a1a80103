import type { Database } from './db.ts';

const VACUUM_EVERY_MS = 15 * 60_000;

/**
 * PGlite runs no autovacuum: rows updated or deleted (job-queue rows above all)
 * would stay as dead rows for good, and tables would only grow. So the embedded
 * store vacuums and analyses its tables itself, every quarter of an hour. Tables
 * with an HNSW index are left out: vacuuming one takes minutes on PGlite, and the
 * statement blocks the process meanwhile. PostgreSQL servers have autovacuum.
 */
export async function vacuumEmbedded(database: Database): Promise<string[]> {
  const { rows } = await database.executeSql(`
    select format('%I.%I', n.nspname, c.relname) as name
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'
      and not exists (
        select 1 from pg_index i join pg_class ic on ic.oid = i.indexrelid join pg_am am on am.oid = ic.relam
        where i.indrelid = c.oid and am.amname = 'hnsw')
    order by 1`);
  const tables = rows.map((row) => row.name as string);
  if (tables.length > 0) await database.exec(`vacuum (analyze) ${tables.join(', ')}`);
  return tables;
}

/** Starts the periodic pass; the returned function stops it. */
export function startEmbeddedVacuum(database: Database): () => Promise<void> {
  const timer = setInterval(() => {
    vacuumEmbedded(database).catch((error: unknown) => console.error('[vacuum]', error));
  }, VACUUM_EVERY_MS);
  timer.unref();
  return async () => clearInterval(timer);
}
