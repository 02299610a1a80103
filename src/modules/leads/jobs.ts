/**
 * Expiry of leads (spec 2.10 expiresAt): a sweep in every worker deletes the leads
 * whose time has come, every few minutes and whenever the test clock moves. Deleting
 * is idempotent, so several workers sweeping at once do no harm; reads leave expired
 * leads out in the meantime.
 */
import type { Context } from '../../context.ts';
import { deleteExpiredLeads } from './store.ts';

const SWEEP_EVERY_MS = 5 * 60_000;

export async function leadsWorker(ctx: Context): Promise<void> {
  const sweep = serialised(async () => {
    try {
      await deleteExpiredLeads(ctx.db, ctx.clock.now());
    } catch (error) {
      console.error('[leads] expiry sweep', error);
    }
  });
  let stopped = false;
  const sweepUnlessStopped = () => void (stopped || sweep());
  await sweep();
  const timer = setInterval(sweepUnlessStopped, SWEEP_EVERY_MS);
  timer.unref();
  ctx.testClock?.onChange(sweepUnlessStopped);
  ctx.onClose(async () => {
    stopped = true;
    clearInterval(timer);
    await sweep.idle();
  });
}

/** One run at a time; a call during a run asks for one more run after it (the clock may have moved again). */
function serialised(run: () => Promise<void>): (() => Promise<void>) & { idle(): Promise<void> } {
  let running: Promise<void> | undefined;
  let again = false;
  const start = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await run();
      } while (again);
    })().finally(() => (running = undefined));
    return running;
  };
  return Object.assign(start, { idle: async () => void (await running) });
}
