import { z } from 'zod';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { UIMessageChunk } from 'ai';
import type { Context } from '../../context.ts';
import { actorOf, seesTestConversations, type Principal } from '../../domain/principal.ts';
import { commonErrors, list, single } from '../../http/schemas.ts';
import { requireAgent, requireAgentSettings } from '../agents/access.ts';
import { agentParams } from '../agents/schemas.ts';
import { answer, answerStream, type Asker, type Question } from './service.ts';
import { aiSdk } from './ai-sdk.ts';
import type { Exporter } from './export.ts';
import { deleteConversation, getConversation, listConversations } from './conversations.ts';
import { agentConversationParams, chatBody, chatReply, conversationListQuery, conversationSchema, conversationWithMessagesSchema } from './schemas.ts';

const tags = ['chat'];

export function askerOf(auth: Principal): Asker {
  return { workspaceId: auth.workspaceId, plan: auth.plan, seesTests: seesTestConversations(auth) };
}

/** A key's question (REST and MCP): `test` files it in a playground conversation, otherwise channel api. */
export function keyQuestion({ test, ...rest }: Omit<z.infer<typeof chatBody>, 'stream'>): Question {
  return { ...rest, channel: test ? 'playground' : 'api' };
}

/** Who asks for an export link: the key or the person, which the link dies with (spec 4.8). */
export function exporterOf(auth: Principal): Exporter {
  return { workspaceId: auth.workspaceId, ...actorOf(auth), seesTests: askerOf(auth).seesTests };
}

export async function chatRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/agents/:id/chat',
    {
      config: { scope: 'chat' },
      schema: {
        tags,
        summary: 'Ask a question; with stream true the reply is a UI message stream (text/event-stream)',
        params: agentParams,
        body: chatBody,
        response: { 200: single(chatReply), ...commonErrors },
      },
    },
    async (request, reply) => {
      const agent = await requireAgentSettings(ctx, request.auth, request.params.id, { active: true });
      const { stream, ...rest } = request.body;
      const question = keyQuestion(rest);
      if (!stream) return { data: await answer(ctx, askerOf(request.auth), agent, question) };
      const answering = await answerStream(ctx, askerOf(request.auth), agent, question);
      await sendStream(reply, answering.stream);
      return reply;
    },
  );

  app.get(
    '/agents/:id/conversations',
    {
      config: { scope: 'read' },
      schema: { tags, summary: 'Conversations, newest first', params: agentParams, querystring: conversationListQuery, response: { 200: list(conversationSchema), ...commonErrors } },
    },
    async (request) => {
      const agent = await requireAgent(ctx, request.auth, request.params.id);
      const page = await listConversations(ctx, askerOf(request.auth), agent, request.query);
      return { data: page.items, pagination: { nextCursor: page.nextCursor } };
    },
  );

  app.get(
    '/agents/:id/conversations/:conversationId',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'One conversation with its messages',
        params: agentConversationParams,
        querystring: z.strictObject({}),
        response: { 200: single(conversationWithMessagesSchema), ...commonErrors },
      },
    },
    async (request) => {
      const agent = await requireAgent(ctx, request.auth, request.params.id);
      return { data: await getConversation(ctx, askerOf(request.auth), agent, request.params.conversationId) };
    },
  );

  app.delete(
    '/agents/:id/conversations/:conversationId',
    {
      config: { scope: 'manage', audit: 'conversation.delete' },
      schema: {
        tags,
        summary: 'Erase a conversation with its messages (the month’s usage stays)',
        params: agentConversationParams,
        response: { 200: single(z.object({ id: z.string(), deleted: z.literal(true) })), ...commonErrors },
      },
    },
    async (request) => {
      const agent = await requireAgent(ctx, request.auth, request.params.id);
      return { data: await deleteConversation(ctx, askerOf(request.auth), agent, request.params.conversationId) };
    },
  );
}

/**
 * Hands the stream to the socket with the headers this request already has
 * (request id, rate limit): the AI SDK writes the UI message stream protocol itself.
 */
export async function sendStream(reply: FastifyReply, stream: ReadableStream<UIMessageChunk>): Promise<void> {
  const { pipeUIMessageStreamToResponse } = await aiSdk();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = String(value);
  reply.hijack();
  pipeUIMessageStreamToResponse({ response: reply.raw, stream, headers: { ...headers, 'x-accel-buffering': 'no', 'cache-control': 'no-cache' } });
}
