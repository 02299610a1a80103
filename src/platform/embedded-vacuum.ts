import type { Database } from './db.ts';

const VACUUM_EVERY_MS = 15 * 60_000;
const GROWTH_CHECK_EVERY_MS = 30_000;
/** A table never analysed is analysed once it holds more pages than this. */
const NEVER_ANALYSED_PAGES = 8;

const USER_TABLES = `
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'`;

/**
 * PGlite runs no autovacuum: rows updated or deleted (job-queue rows above all)
 * would stay as dead rows for good, and tables would only grow. So the embedded
 * store vacuums and analyses its tables itself, every quarter of an hour. Tables
 * with an HNSW index are left out: vacuuming one takes minutes on PGlite, and the
 * statement blocks the process meanwhile. PostgreSQL servers have autovacuum.
 */
export async function vacuumEmbedded(database: Database): Promise<string[]> {
  const { rows } = await database.executeSql(`
    select format('%I.%I', n.nspname, c.relname) as name ${USER_TABLES}
      and not exists (
        select 1 from pg_index i join pg_class ic on ic.oid = i.indexrelid join pg_am am on am.oid = ic.relam
        where i.indrelid = c.oid and am.amname = 'hnsw')
    order by 1`);
  const tables = rows.map((row) => row.name as string);
  if (tables.length > 0) await database.exec(`vacuum (analyze) ${tables.join(', ')}`);
  return tables;
}

/**
 * Analyses the tables that have more than doubled in pages since they were last analysed (or vacuumed), as
 * autovacuum's analyze does on a server once a table has grown. The plans PGlite's one connection keeps, the
 * foreign keys' checks among them, are made again after it: those made while `conversations` was nearly empty
 * scanned the whole table for every message recorded. Analysing reads a bounded sample and no index, so tables with
 * an HNSW index are analysed too.
 */
export async function analyzeGrownEmbedded(database: Database): Promise<string[]> {
  const { rows } = await database.executeSql(`
    select format('%I.%I', n.nspname, c.relname) as name ${USER_TABLES}
      and pg_relation_size(c.oid) / current_setting('block_size')::int > greatest(2 * c.relpages, ${NEVER_ANALYSED_PAGES})
    order by 1`);
  const tables = rows.map((row) => row.name as string);
  if (tables.length > 0) await database.exec(`analyze ${tables.join(', ')}`);
  return tables;
}

/** Starts the periodic passes; the returned function stops them. */
export function startEmbeddedVacuum(database: Database): () => Promise<void> {
  const passes = [
    setInterval(() => vacuumEmbedded(database).catch((error: unknown) => console.error('[vacuum]', error)), VACUUM_EVERY_MS),
    setInterval(() => analyzeGrownEmbedded(database).catch((error: unknown) => console.error('[analyze]', error)), GROWTH_CHECK_EVERY_MS),
  ];
  for (const timer of passes) timer.unref();
  return async () => {
    for (const timer of passes) clearInterval(timer);
  };
}
