import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, storeUnderTest } from '../../test/support/stores.ts';
import { analyzeGrownEmbedded, vacuumEmbedded } from './embedded-vacuum.ts';

test(
  'the embedded store vacuums its own tables, job queue included, and leaves tables with an HNSW index alone',
  { skip: storeUnderTest() !== 'embedded' && 'PostgreSQL servers run autovacuum' },
  async () => {
    const { database, drop } = await freshDatabase('embedded');
    try {
      await database.exec(`create table vacuum_probe (id int primary key, embedding vector(3));
        create index on vacuum_probe using hnsw (embedding vector_cosine_ops);`);
      const vacuumed = await vacuumEmbedded(database);
      assert.ok(vacuumed.includes('pgboss.job_common'), vacuumed.join(', '));
      assert.ok(vacuumed.includes('public.sources'), vacuumed.join(', '));
      assert.ok(!vacuumed.includes('public.vacuum_probe'), 'the HNSW table is left out');
      const { rows } = await database.executeSql(`select relname from pg_stat_user_tables where last_vacuum is not null and relname in ('job_common', 'vacuum_probe')`);
      assert.deepEqual(
        rows.map((row) => row.relname),
        ['job_common'],
      );
    } finally {
      await database.close();
      await drop();
    }
  },
);

test(
  'the embedded store analyses a table once it has doubled since it was last analysed, and a plan kept from when it was empty is made again',
  { skip: storeUnderTest() !== 'embedded' && 'PostgreSQL servers run autovacuum' },
  async () => {
    const { database, drop } = await freshDatabase('embedded');
    const keptPlan = async () => JSON.stringify((await database.executeSql(`explain execute growth_lookup('row-77')`)).rows);
    try {
      await database.exec(`create table growth_probe (id text primary key, note text)`);
      await database.exec(`vacuum analyze growth_probe`);
      assert.ok(!(await analyzeGrownEmbedded(database)).includes('public.growth_probe'), 'an empty table is not analysed again');
      // A plan kept while the table is empty, as a foreign key's check keeps one: a scan of the whole table.
      await database.exec(`set plan_cache_mode = force_generic_plan; prepare growth_lookup(text) as select 1 from growth_probe where id = $1`);
      await database.executeSql(`execute growth_lookup('row-1')`);
      await database.exec(`insert into growth_probe select 'row-' || i, repeat('x', 200) from generate_series(1, 5000) i`);
      assert.match(await keptPlan(), /Seq Scan/);
      assert.ok((await analyzeGrownEmbedded(database)).includes('public.growth_probe'));
      assert.match(await keptPlan(), /Index/);
      assert.ok(!(await analyzeGrownEmbedded(database)).includes('public.growth_probe'), 'not again until it doubles once more');
      await database.exec(`insert into growth_probe select 'more-' || i, repeat('x', 200) from generate_series(1, 500) i`);
      assert.ok(!(await analyzeGrownEmbedded(database)).includes('public.growth_probe'), 'a tenth more is not a doubling');
    } finally {
      await database.close();
      await drop();
    }
  },
);
