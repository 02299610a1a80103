import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { Context } from '../../context.ts';
import { commonErrors, single } from '../../http/schemas.ts';
import { agentParams } from '../agents/schemas.ts';
import { sendStream } from '../chat/routes.ts';
import { getIdentitySecret, rotateIdentitySecret } from './identity.ts';
import { challengeSchema, eventBody, eventReply, feedbackBody, feedbackReply, identitySecretSchema, publicAgentSchema, visitorAgentParams, visitorChatBody, visitorChatReply } from './schemas.ts';
import { giveFeedback, publicAgent, recordEvent, visitorAnswer, visitorAnswerStream } from './service.ts';
import { PROOF_HEADER, newChallenge, requireProof } from './proof-of-work.ts';
import { VISITOR_TOKEN_HEADER, visitorTokenOf } from './token.ts';

const tags = ['visitor'];

/** The visitor API's core routes under /visitor/v1 (operator contract, "Visitor API"). */
export async function visitorRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/agents/:agentId',
    { schema: { tags, summary: "The agent's public widget settings", params: visitorAgentParams, response: { 200: single(publicAgentSchema), ...commonErrors } } },
    async (request) => ({ data: publicAgent(request.visitor) }),
  );

  app.get(
    '/agents/:agentId/challenge',
    { schema: { tags, summary: 'A proof-of-work challenge for the next question (agents with proofOfWork on)', params: visitorAgentParams, response: { 200: single(challengeSchema), ...commonErrors } } },
    async (request) => ({ data: (await newChallenge(ctx, request.visitor.agent.id)) as z.infer<typeof challengeSchema> }),
  );

  app.post(
    '/agents/:agentId/chat',
    {
      config: { visitorLimit: 'chat' },
      schema: {
        tags,
        summary: 'Ask a question as a visitor; with stream true the reply is a UI message stream',
        params: visitorAgentParams,
        body: visitorChatBody,
        response: { 200: single(visitorChatReply), ...commonErrors },
      },
    },
    async (request, reply) => {
      await requireProof(ctx, request.visitor, request.headers[PROOF_HEADER]);
      const { stream, ...input } = request.body;
      const token = visitorTokenOf(request);
      if (!stream) return { data: await visitorAnswer(ctx, request.visitor, input, token) };
      const answering = await visitorAnswerStream(ctx, request.visitor, input, token);
      if (answering.visitorToken !== undefined) reply.header(VISITOR_TOKEN_HEADER, answering.visitorToken);
      await sendStream(reply, answering.stream);
      return reply;
    },
  );

  app.post(
    '/agents/:agentId/feedback',
    {
      config: { visitorLimit: 'light' },
      schema: { tags, summary: 'Rate an answer: 1, -1, or null to clear', params: visitorAgentParams, body: feedbackBody, response: { 200: single(feedbackReply), ...commonErrors } },
    },
    async (request) => ({ data: await giveFeedback(ctx, request.visitor, request.body, visitorTokenOf(request)) }),
  );

  app.post(
    '/agents/:agentId/events',
    {
      config: { visitorLimit: 'light' },
      schema: { tags, summary: 'Record a widget event for the analytics', params: visitorAgentParams, body: eventBody, response: { 202: single(eventReply), ...commonErrors } },
    },
    async (request, reply) => reply.status(202).send({ data: await recordEvent(ctx, request.visitor, request.body) }),
  );
}

/** The keyed routes of identity verification under /api/v1: a manage key reads and rotates the agent's secret. */
export async function identityRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/agents/:id/identity-secret',
    {
      config: { scope: 'manage', audit: 'agent.identity_secret.read' },
      schema: {
        tags: ['agents'],
        summary: "The agent's identity secret for signed-in visitors (made on first read)",
        params: agentParams,
        response: { 200: single(identitySecretSchema), ...commonErrors },
      },
    },
    async (request) => ({ data: await getIdentitySecret(ctx, request.auth, request.params.id) }),
  );

  app.post(
    '/agents/:id/identity-secret/rotate',
    {
      config: { scope: 'manage', audit: 'agent.identity_secret.rotate' },
      schema: {
        tags: ['agents'],
        summary: 'Replace the identity secret: hashes made with the old one stop signing visitors in',
        params: agentParams,
        response: { 200: single(identitySecretSchema), ...commonErrors },
      },
    },
    async (request) => ({ data: await rotateIdentitySecret(ctx, request.auth, request.params.id) }),
  );
}
