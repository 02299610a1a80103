/**
 * Expiry of solved tickets (spec 3.3): a sweep in every worker deletes the tickets
 * whose expiresAt has come, every few minutes and whenever the test clock moves.
 * Deleting is idempotent, so workers sweeping at once do no harm; reads leave such
 * tickets out in the meantime.
 */
import type { Context } from '../../context.ts';
import { runPeriodically } from '../../platform/periodic.ts';
import { deleteExpiredTickets } from './store.ts';

const SWEEP_EVERY_MS = 5 * 60_000;

export async function ticketsWorker(ctx: Context): Promise<void> {
  const sweep = runPeriodically({ name: 'tickets', everyMs: SWEEP_EVERY_MS, testClock: ctx.testClock }, () => deleteExpiredTickets(ctx.db, ctx.clock.now()));
  ctx.onClose(sweep.stop);
}
