import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Context } from '../../context.ts';
import { commonErrors } from '../../http/schemas.ts';
import { modelSchema, workspaceReplySchema } from './schemas.ts';
import { describeWorkspace, listModels } from './service.ts';
import { setupGuide, setupGuideQuery, setupGuideReply } from './setup-guide.ts';

export async function workspaceRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/workspace',
    {
      config: { scope: 'read' },
      schema: { tags: ['workspace'], summary: 'The key, plan and usage', querystring: z.strictObject({}), response: { 200: workspaceReplySchema, ...commonErrors } },
    },
    async (request) => ({ data: await describeWorkspace(ctx, request.auth) }),
  );
  app.get(
    '/models',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['workspace'],
        summary: 'Models an agent can use',
        querystring: z.strictObject({}),
        response: { 200: z.object({ data: z.array(modelSchema), pagination: z.object({ nextCursor: z.null() }) }), ...commonErrors },
      },
    },
    async (request) => ({ data: listModels(ctx, request.auth), pagination: { nextCursor: null } }),
  );
  app.get(
    '/setup-guide',
    {
      config: { scope: 'read' },
      schema: { tags: ['workspace'], summary: 'Presets per use case', querystring: setupGuideQuery, response: { 200: setupGuideReply, ...commonErrors } },
    },
    async (request) => ({ data: await setupGuide(ctx, request.auth, request.query.useCase) }),
  );
}
