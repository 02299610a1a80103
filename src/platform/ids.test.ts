import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase } from '../../test/support/stores.ts';
import { newId, newTimeOrderedId } from './ids.ts';

test('time-ordered ids sort by their time in the database (its collation) and in code, are as long as random ids, and differ within a millisecond', async () => {
  const times = [0, 1, 35, 36, 61, 62, 1_000, Date.UTC(2026, 10, 27), Date.UTC(2026, 10, 27) + 1, Date.UTC(2059, 0, 1)];
  const ids = times.map((time) => newTimeOrderedId('chk', time));
  assert.ok(ids.every((id) => id.length === newId('chk').length && /^chk_[0-9a-z]{8}[0-9A-Za-z]{12}$/.test(id)), ids.join(' '));
  assert.deepEqual([...ids].sort(), ids);
  const sameMillisecond = Array.from({ length: 1_000 }, () => newTimeOrderedId('chk', times[7]));
  assert.equal(new Set(sameMillisecond).size, 1_000);
  const { database, drop } = await freshDatabase();
  try {
    // Shuffled by a random id of their own: the order comes from the ids alone.
    const shuffled = ids.map((id) => ({ id, key: newId('chk') })).sort((a, b) => (a.key < b.key ? -1 : 1));
    const { rows } = await database.executeSql('select id from unnest($1::text[]) as t(id) order by id', [shuffled.map((row) => row.id)]);
    assert.deepEqual(
      rows.map((row) => row.id),
      ids,
    );
  } finally {
    await database.close();
    await drop();
  }
});
