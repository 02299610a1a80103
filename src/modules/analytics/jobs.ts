/**
 * The past days' slots folded into one row a day (migrations/050 keeps a day of an agent in up to 16 rows while
 * answers add to it): every worker, every hour and whenever the test clock moves. Folding is one statement and
 * leaves every day's sums as they were, so workers folding at once do no harm.
 */
import type { Context } from '../../context.ts';
import { runPeriodically } from '../../platform/periodic.ts';
import { compactPastDays } from './store.ts';

const FOLD_EVERY_MS = 60 * 60_000;

export async function analyticsWorker(ctx: Context): Promise<void> {
  const fold = runPeriodically({ name: 'analytics slots', everyMs: FOLD_EVERY_MS, testClock: ctx.testClock }, () =>
    compactPastDays(ctx.db, ctx.clock.now().toISOString().slice(0, 10)),
  );
  ctx.onClose(fold.stop);
}
