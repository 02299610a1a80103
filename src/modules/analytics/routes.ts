import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Context } from '../../context.ts';
import { commonErrors, single } from '../../http/schemas.ts';
import { agentParams } from '../agents/schemas.ts';
import { analyticsQuery, analyticsSchema } from './schemas.ts';
import { agentAnalytics } from './service.ts';

/** GET /agents/{id}/analytics (spec 4.13). */
export async function analyticsRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/agents/:id/analytics',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['analytics'],
        summary: 'Figures of a period of UTC days (default the last 30, at most 366); test conversations left out',
        params: agentParams,
        querystring: analyticsQuery,
        response: { 200: single(analyticsSchema), ...commonErrors },
      },
    },
    async (request) => ({ data: await agentAnalytics(ctx, request.auth, request.params.id, request.query) }),
  );
}
