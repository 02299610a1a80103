import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase } from '../../test/support/stores.ts';

test('executeSql of several statements without parameters returns the rows of all of them (the job queue sends such text)', async () => {
  const { database, drop } = await freshDatabase();
  try {
    const { rows } = await database.executeSql('begin; select 1 as n; select 2 as n; commit;');
    assert.deepEqual(
      rows.map((row) => row.n),
      [1, 2],
    );
    assert.deepEqual((await database.executeSql('select $1::int as n', [3])).rows, [{ n: 3 }]);
  } finally {
    await database.close();
    await drop();
  }
});
