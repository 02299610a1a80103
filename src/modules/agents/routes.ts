import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { commonErrors, errorBody, list, single } from '../../http/schemas.ts';
import { publicImage, removeImage, setImage } from './branding.ts';
import { agentParams, agentSchema, createAgentBody, createdAgentSchema, embedSchema, imageBody, imageParams, patchAgentBody } from './schemas.ts';
import * as agents from './service.ts';
import { createAgentWithWebsite } from '../knowledge/crawl/agent-creation.ts';
import { updateAgentWithMailbox } from '../email-channel/agent-update.ts';

const tags = ['agents'];
const imageErrors = { ...commonErrors, 413: errorBody, 415: errorBody, 422: errorBody };

export async function agentRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/agents',
    {
      config: { scope: 'read' },
      schema: { tags, summary: 'List agents, oldest first, all at once', querystring: z.strictObject({}), response: { 200: list(agentSchema), ...commonErrors } },
    },
    async (request) => ({ data: await agents.listAgents(ctx, request.auth), pagination: { nextCursor: null } }),
  );

  app.post(
    '/agents',
    {
      config: { scope: 'manage', audit: 'agent.create' },
      schema: { tags, summary: 'Create an agent', body: createAgentBody, response: { 201: single(createdAgentSchema), ...commonErrors } },
    },
    async (request, reply) => reply.status(201).send({ data: await createAgentWithWebsite(ctx, request.auth, request.body) }),
  );

  app.get(
    '/agents/:id',
    {
      config: { scope: 'read' },
      schema: { tags, summary: 'One agent', params: agentParams, querystring: z.strictObject({}), response: { 200: single(agentSchema), ...commonErrors } },
    },
    async (request) => ({ data: await agents.getAgent(ctx, request.auth, request.params.id) }),
  );

  app.patch(
    '/agents/:id',
    {
      config: { scope: 'manage', audit: 'agent.update' },
      schema: { tags, summary: 'Change an agent; only what is sent changes', params: agentParams, body: patchAgentBody, response: { 200: single(agentSchema), ...commonErrors } },
    },
    async (request) => ({ data: await updateAgentWithMailbox(ctx, request.auth, request.params.id, request.body) }),
  );

  app.delete(
    '/agents/:id',
    {
      config: { scope: 'manage', audit: 'agent.delete' },
      schema: {
        tags,
        summary: 'Delete an agent with everything it owns; irreversible',
        params: agentParams,
        response: { 200: single(z.object({ id: z.string(), deleted: z.literal(true) })), ...commonErrors },
      },
    },
    async (request) => ({ data: await agents.deleteAgent(ctx, request.auth, request.params.id) }),
  );

  app.put(
    '/agents/:id/branding/:image',
    {
      config: { scope: 'manage', audit: 'agent.branding.set' },
      schema: { tags, summary: 'Set the logo or icon from an address', params: imageParams, body: imageBody, response: { 200: single(agentSchema), ...imageErrors } },
    },
    async (request) => ({ data: await setImage(ctx, request.auth, request.params.id, request.params.image, request.body.url) }),
  );

  app.delete(
    '/agents/:id/branding/:image',
    {
      config: { scope: 'manage', audit: 'agent.branding.remove' },
      schema: { tags, summary: 'Remove the logo or icon', params: imageParams, response: { 200: single(agentSchema), ...commonErrors } },
    },
    async (request) => ({ data: await removeImage(ctx, request.auth, request.params.id, request.params.image) }),
  );

  app.get(
    '/agents/:id/embed',
    {
      config: { scope: 'read' },
      schema: { tags, summary: 'Install snippets', params: agentParams, querystring: z.strictObject({}), response: { 200: single(embedSchema), ...commonErrors } },
    },
    async (request) => ({ data: await agents.embedSnippets(ctx, request.auth, request.params.id) }),
  );

  // Public, no key (no scope): the images the widget shows. Not part of the keyed API, so hidden from the document.
  app.get(
    '/assets/agents/:id/:image',
    // Behind a proxy every visitor would share one address's window: images are not counted.
    { config: { rateLimited: false }, schema: { hide: true, params: imageParams, querystring: z.object({ v: z.string().max(40).optional() }) } },
    async (request, reply) => {
      const image = await publicImage(ctx, request.params.id, request.params.image);
      if (!image) throw errors.notFound('image');
      // An address carrying the current version never changes; others are rechecked.
      const cache = request.query.v === image.version ? 'public, max-age=31536000, immutable' : 'public, max-age=300';
      return reply
        .header('content-type', image.media_type)
        .header('cache-control', cache)
        .header('x-content-type-options', 'nosniff')
        .header('cross-origin-resource-policy', 'cross-origin')
        .send(Buffer.from(image.bytes));
    },
  );
}
