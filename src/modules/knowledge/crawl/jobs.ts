/** The crawl's background work: batches of pages, and picking up crawls a stopped process left. */
import type { Context } from '../../../context.ts';
import { beatEverySeconds, workerId } from '../../../platform/heartbeat.ts';
import { runPeriodically } from '../../../platform/periodic.ts';
import { failCrawl, lostPagesRule, runCrawlBatch } from './crawler.ts';
import { CRAWL_BATCH_JOB, CRAWL_JOB_OPTIONS, queueCrawlBatch, type CrawlBatchJob } from './service.ts';
import { reclaimLostPages, unfinishedCrawlIds } from './store.ts';

/** Crawls (of different agents) one worker process reads at once. */
const CRAWLS_AT_ONCE = 4;

export async function crawlWorker(ctx: Context): Promise<void> {
  const worker = await workerId(ctx);
  let stopping = false;
  // Registered after the queue, so it runs before the queue stops: lanes finish the page in hand and stop.
  ctx.onClose(async () => {
    stopping = true;
  });
  await ctx.queue.define(CRAWL_BATCH_JOB, CRAWL_JOB_OPTIONS);
  await ctx.queue.work<CrawlBatchJob>(
    CRAWL_BATCH_JOB,
    async (data, job) => {
      try {
        await runCrawlBatch(ctx, data.crawlId, worker, () => stopping);
      } catch (error) {
        if (job.retryCount >= CRAWL_JOB_OPTIONS.retryLimit) await failCrawl(ctx, data.crawlId, `batch kept failing: ${String(error)}`);
        throw error;
      }
    },
    { concurrency: CRAWLS_AT_ONCE },
  );
  // A crawl whose batch was lost with a stopped process goes on here; a second batch
  // alongside one still queued is harmless, as pages are claimed one by one.
  for (const crawlId of await unfinishedCrawlIds(ctx.db)) await queueCrawlBatch(ctx, crawlId);
  // Pages of a worker that died go back to the frontier within seconds, and their crawl gets
  // a batch at once: the dead worker's own batch job stays active until pg-boss expires it.
  const sweep = runPeriodically({ name: 'crawl lost pages', everyMs: beatEverySeconds(ctx) * 1000, testClock: undefined }, async () => {
    for (const crawlId of await reclaimLostPages(ctx.db, lostPagesRule(ctx, worker))) await queueCrawlBatch(ctx, crawlId);
  });
  ctx.onClose(() => sweep.stop());
}
