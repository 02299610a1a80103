import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Context } from '../../context.ts';
import { commonErrors, list, single } from '../../http/schemas.ts';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks } from './service.ts';
import { createdWebhookSchema, createWebhookBody, deletedWebhookSchema, webhookParams, webhookSchema } from './schemas.ts';

const tags = ['webhooks'];

/** Spec 4.14 under /api/v1. */
export async function webhookRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/webhooks',
    {
      config: { scope: 'read', role: 'admin' },
      schema: { tags, summary: 'Webhooks, oldest first, on one page', querystring: z.strictObject({}), response: { 200: list(webhookSchema), ...commonErrors } },
    },
    async (request) => ({ data: await listWebhooks(ctx, request.auth), pagination: { nextCursor: null } }),
  );

  app.post(
    '/webhooks',
    {
      config: { scope: 'manage', role: 'admin', audit: 'webhook.create' },
      schema: { tags, summary: 'Add a webhook (the reply alone shows its signing secret)', body: createWebhookBody, response: { 201: single(createdWebhookSchema), ...commonErrors } },
    },
    async (request, reply) => reply.status(201).send({ data: await createWebhook(ctx, request.auth, request.body) }),
  );

  app.get(
    '/webhooks/:id',
    {
      config: { scope: 'read', role: 'admin' },
      schema: { tags, summary: 'One webhook', params: webhookParams, querystring: z.strictObject({}), response: { 200: single(webhookSchema), ...commonErrors } },
    },
    async (request) => ({ data: await getWebhook(ctx, request.auth, request.params.id) }),
  );

  app.delete(
    '/webhooks/:id',
    {
      config: { scope: 'manage', role: 'admin', audit: 'webhook.delete' },
      schema: { tags, summary: 'Delete a webhook; nothing more is sent to it, waiting retries included', params: webhookParams, response: { 200: single(deletedWebhookSchema), ...commonErrors } },
    },
    async (request) => ({ data: await deleteWebhook(ctx, request.auth, request.params.id) }),
  );
}
