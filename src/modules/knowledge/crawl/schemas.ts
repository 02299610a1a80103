import { z } from 'zod';

export const crawlSchema = z
  .object({
    id: z.string(),
    status: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']),
    processed: z.number().int(),
    discovered: z.number().int(),
    pending: z.number().int(),
    failed: z.number().int(),
    stopReason: z.enum(['page_limit', 'storage_limit']).nullable(),
  })
  .meta({ id: 'Crawl' });

export const crawlCancelledSchema = z.object({ id: z.string(), cancelled: z.literal(true), processed: z.number().int() });
