import { z } from 'zod';
import { saveClockOffset } from '../../platform/shared-clock.ts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { bearerToken } from '../../http/auth.ts';
import { pageQuery } from '../../domain/paging.ts';
import { PLAN_IDS } from '../../domain/plans.ts';
import * as admin from './service.ts';
import { operatorSignInLink } from '../people/service.ts';

const idParams = z.object({ id: z.string() });
const languageSchema = z.enum(['en', 'nl', 'fr', 'de', 'es']);
const hostnameSchema = z.string().regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, 'a host name such as chat.example.com');

/** The operator API (operator contract): bearer PARLEY_ADMIN_TOKEN, same shapes and error body as the public API. */
export async function adminRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  app.addHook('onRequest', async (request) => {
    await admin.verifyAdminToken(ctx, bearerToken(request.headers.authorization));
  });

  app.post(
    '/workspaces',
    {
      schema: {
        body: z.strictObject({
          name: z.string().min(1).max(100),
          plan: z.enum(PLAN_IDS).optional(),
          ownerEmail: z.email().optional(),
          language: languageSchema.optional(),
          hostname: hostnameSchema.optional(),
        }),
      },
    },
    async (request, reply) => reply.status(201).send({ data: await admin.createWorkspace(ctx, request.body, request.id) }),
  );
  app.get('/workspaces', { schema: { querystring: z.strictObject(pageQuery) } }, async (request) => {
    const page = await admin.listWorkspaces(ctx, request.query);
    return { data: page.items, pagination: { nextCursor: page.nextCursor } };
  });
  app.get('/workspaces/:id', { schema: { params: idParams } }, async (request) => ({ data: await admin.readWorkspace(ctx, request.params.id) }));
  app.patch(
    '/workspaces/:id',
    {
      schema: {
        params: idParams,
        body: z.strictObject({
          name: z.string().min(1).max(100).optional(),
          plan: z.enum(PLAN_IDS).optional(),
          status: z.enum(['active', 'stopped']).optional(),
          hostname: hostnameSchema.nullable().optional(),
          ownerEmail: z.email().nullable().optional(),
        }),
      },
    },
    async (request) => ({ data: await admin.updateWorkspace(ctx, request.params.id, request.body, request.id) }),
  );
  app.post(
    '/workspaces/:id/credit-packs',
    { schema: { params: idParams, body: z.strictObject({ credits: z.number().int().min(1).max(10_000_000) }) } },
    async (request, reply) => reply.status(201).send({ data: await admin.addCreditPack(ctx, request.params.id, request.body.credits, request.id) }),
  );
  app.post(
    '/workspaces/:id/keys',
    {
      schema: {
        params: idParams,
        body: z.strictObject({ name: z.string().min(1).max(100), scope: z.enum(['read', 'chat', 'manage']), agentId: z.string().optional() }),
      },
    },
    async (request, reply) => reply.status(201).send({ data: await admin.createKey(ctx, request.params.id, request.body, request.id) }),
  );
  app.get('/workspaces/:id/keys', { schema: { params: idParams, querystring: z.strictObject({}) } }, async (request) => ({ data: await admin.listKeys(ctx, request.params.id) }));
  app.delete(
    '/workspaces/:id/keys/:keyId',
    { schema: { params: z.object({ id: z.string(), keyId: z.string() }) } },
    async (request) => ({ data: await admin.revokeKey(ctx, request.params.id, request.params.keyId, request.id) }),
  );
  signInLinkRoute(app, ctx);
  app.get('/workspaces/:id/audit', { schema: { params: idParams } }, async (request) => ({
    data: await admin.listAuditEntries(ctx, request.params.id),
    pagination: { nextCursor: null },
  }));
  app.get('/outbox', async () => ({ data: await admin.listOutbox(ctx), pagination: { nextCursor: null } }));
  app.get('/clock', async () => ({ data: { now: ctx.clock.now().toISOString() } }));
  app.post(
    '/clock',
    {
      schema: {
        body: z.union([z.strictObject({ advanceSeconds: z.number().min(0).max(10 * 365 * 86_400) }), z.strictObject({ now: z.iso.datetime() })]),
      },
    },
    async (request) => {
      if (!ctx.testClock) throw errors.routeNotFound('POST', '/admin/v1/clock');
      if ('now' in request.body) ctx.testClock.set(new Date(request.body.now));
      else ctx.testClock.advance(request.body.advanceSeconds);
      await saveClockOffset(ctx.db, ctx.testClock);
      return { data: { now: ctx.clock.now().toISOString() } };
    },
  );
}

/** A fresh one-time sign-in link to the dashboard, for the owner or another person of the workspace (operator contract, docs/people.md). */
function signInLinkRoute(app: FastifyInstance, ctx: Context): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/workspaces/:id/sign-in-links',
    { schema: { params: idParams, body: z.strictObject({ email: z.email().optional() }).optional() } },
    async (request, reply) => reply.status(201).send({ data: await operatorSignInLink(ctx, request.params.id, request.body?.email) }),
  );
}
