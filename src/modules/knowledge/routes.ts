import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Context } from '../../context.ts';
import { commonErrors, errorBody, list, single, timestamp } from '../../http/schemas.ts';
import { pageQuery } from '../../domain/paging.ts';
import { requireAgent } from '../agents/access.ts';
import { agentParams } from '../agents/schemas.ts';
import { crawlSchema } from './crawl/schemas.ts';
import { addSourceAs, deleteSource, getSource, listSources, retrain } from './service.ts';
import type { SourceRow, SourceSummary } from './store.ts';

const tags = ['sources'];
const sourceParams = agentParams.extend({ sourceId: z.string().max(100) });

const url = z.string().min(1).max(2000);
export const newSourceBody = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), title: z.string().trim().min(1).max(200), content: z.string().trim().min(1).max(900_000) }),
  z.strictObject({ type: z.literal('qa'), question: z.string().trim().min(1).max(1000), answer: z.string().trim().min(1).max(20_000) }),
  z.strictObject({ type: z.literal('file'), url, name: z.string().trim().min(1).max(200).optional() }),
  z.strictObject({
    type: z.literal('website'),
    url,
    mode: z.enum(['links', 'sitemap', 'single']).optional(),
    excludePaths: z.array(z.string().max(500)).max(100).optional(),
  }),
]);

const sourceFields = {
  id: z.string(),
  type: z.enum(['website', 'file', 'text', 'qa']),
  name: z.string(),
  url: z.string().nullable(),
  status: z.enum(['pending', 'ready', 'failed']),
  error: z.enum(['file_unreadable', 'no_content', 'too_large', 'never_finished', 'temporary', 'file_too_complex']).nullable(),
  turnedAway: z.enum(['login_page', 'too_little_content']).nullable(),
  sizeBytes: z.number().int(),
  chunkCount: z.number().int(),
  createdAt: timestamp,
  processedAt: timestamp.nullable(),
};
export const sourceSchema = z.object(sourceFields).meta({ id: 'Source' });
export type SourceView = z.infer<typeof sourceSchema>;
export const sourceWithContentSchema = z.object({ ...sourceFields, content: z.string() }).meta({ id: 'SourceWithContent' });

export function sourceView(row: SourceSummary) {
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    url: row.url,
    status: row.status,
    error: row.error,
    turnedAway: row.turned_away,
    sizeBytes: Number(row.size_bytes),
    chunkCount: row.chunk_count,
    createdAt: new Date(row.created_at).toISOString(),
    processedAt: row.processed_at ? new Date(row.processed_at).toISOString() : null,
  };
}

/** A source with what the agent was taught from it; a Q&A pair's content is its question and answer. */
export function sourceWithContentView(source: SourceRow) {
  return { ...sourceView(source), content: source.type === 'qa' ? `${source.name}\n\n${source.content}` : source.content };
}

const fileErrors = { ...commonErrors, 413: errorBody, 415: errorBody, 422: errorBody };

export async function knowledgeRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/agents/:id/sources',
    {
      config: { scope: 'read' },
      schema: { tags, summary: 'List sources, newest first, without content', params: agentParams, querystring: z.strictObject(pageQuery), response: { 200: list(sourceSchema), ...commonErrors } },
    },
    async (request) => {
      const agent = await requireAgent(ctx, request.auth, request.params.id);
      const page = await listSources(ctx, agent, request.query);
      return { data: page.items.map(sourceView), pagination: { nextCursor: page.nextCursor } };
    },
  );

  app.post(
    '/agents/:id/sources',
    {
      config: { scope: 'manage', audit: 'source.create' },
      schema: {
        tags,
        summary: 'Add a source: text, qa or file (a pending source), or website (the crawl it starts)',
        params: agentParams,
        body: newSourceBody,
        response: { 201: single(z.union([sourceSchema, crawlSchema])), ...fileErrors },
      },
    },
    async (request, reply) => {
      const added = await addSourceAs(ctx, request.auth, request.params.id, request.body);
      return reply.status(201).send({ data: added.kind === 'crawl' ? added.crawl : sourceView(added.source) });
    },
  );

  app.get(
    '/agents/:id/sources/:sourceId',
    {
      config: { scope: 'read' },
      schema: { tags, summary: 'One source with its content', params: sourceParams, querystring: z.strictObject({}), response: { 200: single(sourceWithContentSchema), ...commonErrors } },
    },
    async (request) => {
      const agent = await requireAgent(ctx, request.auth, request.params.id);
      return { data: sourceWithContentView(await getSource(ctx, agent, request.params.sourceId)) };
    },
  );

  app.delete(
    '/agents/:id/sources/:sourceId',
    {
      config: { scope: 'manage', audit: 'source.delete' },
      schema: { tags, summary: 'Delete a source and its passages', params: sourceParams, response: { 200: single(z.object({ id: z.string(), deleted: z.literal(true) })), ...commonErrors } },
    },
    async (request) => {
      const agent = await requireAgent(ctx, request.auth, request.params.id);
      await deleteSource(ctx, agent, request.params.sourceId);
      return { data: { id: request.params.sourceId, deleted: true as const } };
    },
  );

  app.post(
    '/agents/:id/retrain',
    {
      config: { scope: 'manage', audit: 'agent.retrain' },
      schema: {
        tags,
        summary: 'Read every source again from what was stored',
        params: agentParams,
        response: { 202: single(z.object({ id: z.string(), queued: z.literal(true), sourceCount: z.number().int(), retrainsLeft: z.number().int() })), 409: errorBody, ...commonErrors },
      },
    },
    async (request, reply) => {
      const agent = await requireAgent(ctx, request.auth, request.params.id, { active: true });
      return reply.status(202).send({ data: await retrain(ctx, agent) });
    },
  );
}
