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

test('listen hears a NOTIFY on its channel (the job queue wakes its workers so), and nothing after it is closed', async () => {
  const { database, drop } = await freshDatabase();
  try {
    const heard: string[] = [];
    let subscribed = 0;
    const listening = await database.listen('parley_test_channel', (payload) => heard.push(payload), () => subscribed++);
    assert.equal(subscribed, 1, 'onReconnect after the first subscription');
    await database.executeSql(`select pg_notify('parley_test_channel', 'mail.deliver')`);
    await database.executeSql(`select pg_notify('another_channel', 'not this')`);
    for (let i = 0; i < 100 && heard.length === 0; i++) {
      await database.executeSql('select 1');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(heard, ['mail.deliver']);
    await listening.close();
    await database.executeSql(`select pg_notify('parley_test_channel', 'late')`);
    await database.executeSql('select 1');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(heard, ['mail.deliver']);
  } finally {
    await database.close();
    await drop();
  }
});
