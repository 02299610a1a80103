import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Context } from '../../context.ts';
import { commonErrors, errorBody, single } from '../../http/schemas.ts';
import { requireAgent } from '../agents/access.ts';
import { agentParams } from '../agents/schemas.ts';
import { sourceSchema, sourceView } from '../knowledge/routes.ts';
import { correctAnswer } from './correction.ts';
import { createExport, openExport } from './export.ts';
import { askerOf, exporterOf } from './routes.ts';
import { agentMessageParams, correctionBody, exportQuery, exportReply } from './schemas.ts';

const tags = ['chat'];

/** Corrections of answers and the PDF export of conversations (spec 4.8). */
export async function exportRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/agents/:id/messages/:messageId/correction',
    {
      config: { scope: 'manage', audit: 'message.correct' },
      schema: {
        tags,
        summary: 'Correct an answer: what it should have said becomes a Q&A source (pending until learned); the conversation is not changed',
        params: agentMessageParams,
        body: correctionBody,
        response: { 201: single(sourceSchema), 409: errorBody, 422: errorBody, ...commonErrors },
      },
    },
    async (request, reply) => {
      const agent = await requireAgent(ctx, request.auth, request.params.id, { active: true });
      const source = await correctAnswer(ctx, askerOf(request.auth), agent, request.params.messageId, request.body);
      return reply.status(201).send({ data: sourceView(source) });
    },
  );

  app.get(
    '/agents/:id/conversations/export',
    {
      config: { scope: 'read', audit: 'conversation.export' },
      schema: {
        tags,
        summary: 'A link to a PDF of the conversations of a period (default the last 30 UTC days), at most the 500 most recent; it works without a key for 15 minutes',
        params: agentParams,
        querystring: exportQuery,
        response: { 200: single(exportReply), ...commonErrors },
      },
    },
    async (request) => {
      const agent = await requireAgent(ctx, request.auth, request.params.id);
      return { data: await createExport(ctx, exporterOf(request.auth), agent, request.query) };
    },
  );

  // No key: the link is the credential. Not part of the keyed API, so hidden from the document.
  app.get(
    '/conversation-exports/:secret',
    { schema: { hide: true, params: z.strictObject({ secret: z.string().max(100) }) } },
    async (request, reply) => {
      const opened = await openExport(ctx, request.params.secret, request.id);
      return reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', `attachment; filename="${opened.fileName}"`)
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .header('x-content-type-options', 'nosniff')
        .send(opened.pdf);
    },
  );
}
