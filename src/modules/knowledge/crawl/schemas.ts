import { z } from 'zod';
import { pageQuery } from '../../../domain/paging.ts';
import { LISTED_STATUSES } from './pages.ts';

export const crawlSchema = z
  .object({
    id: z.string(),
    status: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']),
    processed: z.number().int(),
    discovered: z.number().int(),
    pending: z.number().int(),
    failed: z.number().int(),
    turnedAway: z.number().int(),
    stopReason: z.enum(['page_limit', 'storage_limit']).nullable(),
  })
  .meta({ id: 'Crawl' });
export type CrawlView = z.infer<typeof crawlSchema>;

export const crawlCancelledSchema = z.object({ id: z.string(), cancelled: z.literal(true), processed: z.number().int() });

export const crawlPageSchema = z
  .object({
    url: z.string(),
    status: z.enum(LISTED_STATUSES),
    reason: z.string().nullable(),
  })
  .meta({ id: 'CrawlPage' });
export type CrawlPageView = z.infer<typeof crawlPageSchema>;

export const crawlPagesQuery = z.strictObject({ status: z.enum(LISTED_STATUSES).optional(), ...pageQuery });
