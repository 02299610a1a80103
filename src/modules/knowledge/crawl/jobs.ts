/** The crawl's background work: batches of pages, and picking up crawls a stopped process left. */
import type { Context } from '../../../context.ts';
import { failCrawl, runCrawlBatch } from './crawler.ts';
import { CRAWL_BATCH_JOB, CRAWL_JOB_OPTIONS, queueCrawlBatch, type CrawlBatchJob } from './service.ts';
import { unfinishedCrawlIds } from './store.ts';

/** Crawls (of different agents) one worker process reads at once. */
const CRAWLS_AT_ONCE = 4;

export async function crawlWorker(ctx: Context): Promise<void> {
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
        await runCrawlBatch(ctx, data.crawlId, () => stopping);
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
}
