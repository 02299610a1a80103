import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as tick } from 'node:timers/promises';
import { freshDatabase } from '../../test/support/stores.ts';
import { SettableClock } from './clock.ts';
import { followClockOffset, saveClockOffset } from './shared-clock.ts';

/** Polls a condition a bounded number of times (the follower looks every 200 ms). */
async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await tick(50);
  assert.ok(check(), 'the condition never held');
}

test('the test clock moved in one process is followed by the others and by a process started later', async () => {
  const { database, drop } = await freshDatabase();
  const stops: Array<() => Promise<void>> = [];
  try {
    const [told, other] = [new SettableClock(), new SettableClock()];
    stops.push(await followClockOffset(database.db, told), await followClockOffset(database.db, other));
    told.advance(3600);
    await saveClockOffset(database.db, told);
    await eventually(() => other.offset() === told.offset());

    const later = new SettableClock();
    stops.push(await followClockOffset(database.db, later));
    assert.equal(later.offset(), told.offset());
  } finally {
    for (const stop of stops) await stop();
    await database.close();
    await drop();
  }
});

test('a clock moved in process is not set back while the stored offset is unchanged', async () => {
  const { database, drop } = await freshDatabase();
  const clock = new SettableClock();
  const stop = await followClockOffset(database.db, clock);
  try {
    await saveClockOffset(database.db, clock);
    clock.advance(60);
    await tick(500);
    assert.equal(clock.offset(), 60_000);
  } finally {
    await stop();
    await database.close();
    await drop();
  }
});
