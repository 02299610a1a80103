/**
 * A new embedded data directory starts from the empty cluster saved for the installed PGlite, not from initdb
 * (src/platform/empty-cluster.ts; docs/performance.md, Memory).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openEmbedded } from './db.ts';
import { emptyClusterFile, pgliteVersion, unpackEmptyCluster } from './empty-cluster.ts';
import { migrate } from './migrate.ts';

test('the empty cluster is saved for the installed PGlite (after an upgrade: node src/platform/empty-cluster.ts)', () => {
  assert.ok(existsSync(emptyClusterFile()), `no empty cluster for PGlite ${pgliteVersion()}: run node src/platform/empty-cluster.ts and remove the old version's file`);
});

test('a new data directory is unpacked from it, migrates, and opens again as an existing database', async () => {
  const dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'parley-cluster-')), 'db');
  const first = await openEmbedded(dataDir);
  try {
    assert.ok(existsSync(path.join(dataDir, 'PG_VERSION')));
    assert.ok(!existsSync(`${dataDir}.unpacking`), 'the unpacking directory is renamed, not left');
    await migrate(first);
    await first.executeSql('create table kept (note text)');
    await first.executeSql('insert into kept values ($1)', ['across a restart']);
  } finally {
    await first.close();
  }
  const again = await openEmbedded(dataDir);
  try {
    assert.deepEqual((await again.executeSql('select note from kept')).rows, [{ note: 'across a restart' }]);
  } finally {
    await again.close();
  }
});

test('a directory that exists is left to PGlite', async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-cluster-'));
  await mkdir(path.join(dataDir, 'db'));
  assert.equal(await unpackEmptyCluster(path.join(dataDir, 'db')), false);
  assert.deepEqual(await readdir(path.join(dataDir, 'db')), []);
});
