import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { freshDatabase } from '../../test/support/stores.ts';
import { openPostgres, prepared, type Database } from './db.ts';

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

test('on the embedded store a statement without parameters or \';\' (the job queue\'s polls) runs as a named statement, parsed once, and answers as before', async (t) => {
  const { database, url, drop } = await freshDatabase();
  try {
    if (url !== undefined) return t.skip('the embedded store only: on PostgreSQL pg-boss sends its statements through the pool as they are');
    const poll = `select count(*)::int as n from (values (1), (2)) as v(x) where x > 0 -- a poll ${Date.now()}`;
    for (let i = 0; i < 3; i++) assert.deepEqual((await database.executeSql(poll)).rows, [{ n: 2 }]);
    const kept = await database.executeSql(`select count(*)::int as n from pg_prepared_statements where statement = '${poll}'`);
    assert.deepEqual(kept.rows, [{ n: 1 }], 'one named statement for the three polls');
    // A statement that changes rows, and several in one text (which the extended protocol refuses): as before.
    await database.executeSql('create table queue_probe (id int primary key, state text)');
    assert.deepEqual((await database.executeSql(`insert into queue_probe values (1, 'created'), (2, 'created') returning id`)).rows, [{ id: 1 }, { id: 2 }]);
    const claim = `update queue_probe set state = 'active' where id = (select min(id) from queue_probe where state = 'created') returning id`;
    assert.deepEqual((await database.executeSql(claim)).rows, [{ id: 1 }]);
    assert.deepEqual((await database.executeSql(claim)).rows, [{ id: 2 }]);
    assert.deepEqual((await database.executeSql(claim)).rows, []);
    assert.deepEqual((await database.executeSql('begin; select 1 as n; select 2 as n; commit;')).rows.map((row) => row.n), [1, 2]);
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

/** On PostgreSQL, a pool of one connection: the statements prepared on it are those pg_prepared_statements lists. */
async function oneConnection(url: string | undefined, database: Database): Promise<Database> {
  return url === undefined ? database : openPostgres(url, 1);
}

test('a prepared statement answers as any other, is parsed once on its connection and kept, on either store', async () => {
  const { database, url, drop } = await freshDatabase();
  const single = await oneConnection(url, database);
  try {
    for (const n of [1, 2, 3]) assert.deepEqual((await prepared(single.db, sql<{ n: number }>`select ${n}::integer + 1 as n`)).rows, [{ n: n + 1 }]);
    const kept = await sql<{ statement: string }>`select statement from pg_prepared_statements where statement like '%::integer + 1 as n'`.execute(single.db);
    assert.equal(kept.rows.length, 1, 'one named statement for the three calls');
    const unprepared = await sql<{ n: number }>`select ${5}::integer as n`.execute(single.db);
    assert.deepEqual(unprepared.rows, [{ n: 5 }]);
    assert.equal((await sql`select 1 from pg_prepared_statements where statement like '%::integer as n'`.execute(single.db)).rows.length, 0, 'a statement not marked stays unnamed');
  } finally {
    if (single !== database) await single.close();
    await database.close();
    await drop();
  }
});

test('a prepared statement reading * gives the new columns after its table changed, also in a transaction afterwards', async () => {
  const { database, url, drop } = await freshDatabase();
  const single = await oneConnection(url, database);
  try {
    await sql`create table prepared_probe (a integer)`.execute(single.db);
    await sql`insert into prepared_probe values (1)`.execute(single.db);
    const read = () => prepared(single.db, sql<Record<string, number>>`select * from prepared_probe`);
    assert.deepEqual((await read()).rows, [{ a: 1 }]);
    await sql`alter table prepared_probe add column b integer not null default 2`.execute(single.db);
    assert.deepEqual((await read()).rows, [{ a: 1, b: 2 }]);
    await sql`alter table prepared_probe add column c integer not null default 3`.execute(single.db);
    // In a transaction the statement cannot be sent again after a refusal: it fails once, then runs under its new name.
    const inTransaction = () => single.db.transaction().execute((trx) => prepared(trx, sql<Record<string, number>>`select * from prepared_probe`));
    const first = await inTransaction().catch(() => undefined);
    assert.deepEqual((first ?? (await inTransaction())).rows, [{ a: 1, b: 2, c: 3 }]);
    assert.deepEqual((await read()).rows, [{ a: 1, b: 2, c: 3 }]);
    const names = await sql`select name from pg_prepared_statements where statement like '%from prepared_probe'`.execute(single.db);
    assert.ok(names.rows.length >= 2, 'the statement was given up and parsed again under a new name');
  } finally {
    if (single !== database) await single.close();
    await database.close();
    await drop();
  }
});

/**
 * Runs `work` with a pool of one PostgreSQL connection (which the test may lose) and another store handle to
 * terminate it from; skipped on the embedded store, whose one connection cannot be lost.
 */
async function withOneLosableConnection(t: TestContext, work: (single: Database, database: Database) => Promise<void>): Promise<void> {
  const { database, url, drop } = await freshDatabase();
  if (url === undefined) {
    t.skip('PostgreSQL only: the embedded store has one connection that cannot be lost');
    await database.close();
    return;
  }
  const single = await openPostgres(url, 1);
  try {
    await work(single, database);
  } finally {
    await single.close();
    await database.close();
    await drop();
  }
}

test('a connection lost while a transaction holds it fails that transaction, not the process, and the next statement runs on a new one', (t) =>
  withOneLosableConnection(t, async (single, database) => {
    let lostPid: number | undefined;
    const transaction = single.db.transaction().execute(async (trx) => {
      lostPid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid;
      await sql`select pg_terminate_backend(${lostPid}::integer)`.execute(database.db);
      // The client hears of the loss while it is handed out: no listener of the pool's is on it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await sql`select 1`.execute(trx);
    });
    await assert.rejects(transaction);
    const after = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(single.db)).rows[0]!;
    assert.notEqual(after.pid, lostPid);
  }));

test('a prepared statement is prepared again on the connection that replaces a lost one', (t) =>
  withOneLosableConnection(t, async (single, database) => {
    const read = () => prepared(single.db, sql<{ pid: number; n: number }>`select pg_backend_pid() as pid, ${7}::integer as n`);
    const before = (await read()).rows[0]!;
    await sql`select pg_terminate_backend(${before.pid}::integer)`.execute(database.db);
    let after: { pid: number; n: number } | undefined;
    // The pool drops the lost connection when it hears of it; a statement sent on it meanwhile fails.
    for (let attempt = 0; attempt < 50 && !after; attempt++) {
      after = (await read().catch(() => undefined))?.rows[0];
      if (!after) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(after, 'the statement runs on a new connection');
    assert.notEqual(after.pid, before.pid);
    assert.equal(after.n, 7);
  }));
