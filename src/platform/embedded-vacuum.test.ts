import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, storeUnderTest } from '../../test/support/stores.ts';
import { vacuumEmbedded } from './embedded-vacuum.ts';

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
