/**
 * The test clock's offset lives in the database, not only in the process that was
 * told to move it: every process of a deployment (and a restarted one) follows it.
 * A process applies the stored offset only when it changes, so a clock moved in
 * process (tests do) is not set back by the next look.
 */
import type { Db } from './db.ts';
import type { SettableClock } from './clock.ts';
import '../modules/workspace/store.ts'; // declares the settings table

const SETTING = 'test_clock_offset_ms';
/** How often other processes look for a moved clock. */
const FOLLOW_EVERY_MS = 200;

/** The stored value each clock last took or wrote. */
const seen = new WeakMap<SettableClock, string>();

export async function saveClockOffset(db: Db, clock: SettableClock): Promise<void> {
  const value = String(clock.offset());
  await db.insertInto('settings').values({ name: SETTING, value }).onConflict((oc) => oc.column('name').doUpdateSet({ value })).execute();
  seen.set(clock, value);
}

async function takeClockOffset(db: Db, clock: SettableClock): Promise<void> {
  const before = seen.get(clock);
  const row = await db.selectFrom('settings').select('value').where('name', '=', SETTING).executeTakeFirst();
  // A clock moved in this process while the read was under way: the row read may be the older value,
  // and taking it would set the clock back until the next look.
  if (seen.get(clock) !== before) return;
  if (!row || row.value === seen.get(clock)) return;
  seen.set(clock, row.value);
  clock.setOffset(Number(row.value));
}

/** Takes the stored offset now and follows its changes from then on; returns the stop function. */
export async function followClockOffset(db: Db, clock: SettableClock): Promise<() => Promise<void>> {
  await takeClockOffset(db, clock);
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= takeClockOffset(db, clock)
      .catch(() => {}) // the database going away at shutdown; the next look tries again
      .finally(() => (running = undefined));
  }, FOLLOW_EVERY_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
