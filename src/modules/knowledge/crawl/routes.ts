import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Context } from '../../../context.ts';
import { commonErrors, list, single } from '../../../http/schemas.ts';
import { requireAgent } from '../../agents/access.ts';
import { agentParams } from '../../agents/schemas.ts';
import { crawlCancelledSchema, crawlPageSchema, crawlPagesQuery, crawlSchema } from './schemas.ts';
import { cancelLatestCrawl, getLatestCrawl, listLatestCrawlPages } from './service.ts';

export async function crawlRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/agents/:id/crawl',
    {
      config: { scope: 'read' },
      schema: { tags: ['sources'], summary: 'Progress of the latest crawl', params: agentParams, response: { 200: single(crawlSchema), ...commonErrors } },
    },
    async (request) => ({ data: await getLatestCrawl(ctx, await requireAgent(ctx, request.auth, request.params.id)) }),
  );
  app.get(
    '/agents/:id/crawl/pages',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['sources'],
        summary: 'Pages of the latest crawl with what became of each (status=turned_away: the pages not kept, with the reason)',
        params: agentParams,
        querystring: crawlPagesQuery,
        response: { 200: list(crawlPageSchema), ...commonErrors },
      },
    },
    async (request) => {
      const page = await listLatestCrawlPages(ctx, await requireAgent(ctx, request.auth, request.params.id), request.query);
      return { data: page.items, pagination: { nextCursor: page.nextCursor } };
    },
  );
  app.delete(
    '/agents/:id/crawl',
    {
      config: { scope: 'manage', audit: 'crawl.cancel' },
      schema: { tags: ['sources'], summary: 'Stop the latest crawl', params: agentParams, response: { 200: single(crawlCancelledSchema), ...commonErrors } },
    },
    async (request) => ({ data: await cancelLatestCrawl(ctx, await requireAgent(ctx, request.auth, request.params.id)) }),
  );
}
