/**
 * Expiry of leads (spec 2.10 expiresAt): every worker deletes the leads whose time
 * has come, every few minutes and whenever the test clock moves. Deleting is
 * idempotent, so several workers sweeping at once do no harm; reads leave expired
 * leads out in the meantime.
 */
import type { Context } from '../../context.ts';
import { runPeriodically } from '../../platform/periodic.ts';
import { deleteExpiredLeads } from './store.ts';

const SWEEP_EVERY_MS = 5 * 60_000;

export async function leadsWorker(ctx: Context): Promise<void> {
  const sweep = runPeriodically({ name: 'leads expiry', everyMs: SWEEP_EVERY_MS, testClock: ctx.testClock }, () => deleteExpiredLeads(ctx.db, ctx.clock.now()));
  ctx.onClose(sweep.stop);
}
