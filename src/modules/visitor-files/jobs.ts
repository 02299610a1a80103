/**
 * The end of a visitor file's 30 days (spec 2.9): a sweep in every worker drops the
 * text and the stored file, every ten minutes and whenever the test clock moves.
 * Dropping is idempotent, so workers sweeping at once do no harm; reads show a file
 * past its days without them in the meantime.
 */
import type { Context } from '../../context.ts';
import { runPeriodically } from '../../platform/periodic.ts';
import { dropDueFiles } from './service.ts';

const SWEEP_EVERY_MS = 10 * 60_000;

export async function visitorFilesWorker(ctx: Context): Promise<void> {
  const sweep = runPeriodically({ name: 'visitor-files', everyMs: SWEEP_EVERY_MS, testClock: ctx.testClock }, () => dropDueFiles(ctx));
  ctx.onClose(sweep.stop);
}
