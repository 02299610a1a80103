import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { commonErrors, single } from '../../http/schemas.ts';
import { agentParams } from '../agents/schemas.ts';
import { clientBody, clientReply } from './schemas.ts';
import { deleteClient, getClient, putClient, rotateReportLink } from './service.ts';

const tags = ['clients'];
const noQuery = z.strictObject({});

/** The agent's client under /api/v1 (spec 4.12): agency plan and up; refused to keys tied to one agent. */
export async function clientRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/agents/:id/client',
    {
      config: { scope: 'read' },
      schema: { tags, summary: 'The agent’s client (fees for manage keys only) and its report settings', params: agentParams, querystring: noQuery, response: { 200: single(clientReply), ...commonErrors } },
    },
    async (request) => ({ data: await getClient(ctx, request.auth, request.params.id) }),
  );

  app.put(
    '/agents/:id/client',
    {
      config: { scope: 'manage', role: 'admin', audit: 'client.update' },
      schema: { tags, summary: 'Record or change the client; omitted fields stay', params: agentParams, body: clientBody, response: { 200: single(clientReply), ...commonErrors } },
    },
    async (request) => ({ data: await putClient(ctx, request.auth, request.params.id, request.body) }),
  );

  app.delete(
    '/agents/:id/client',
    {
      config: { scope: 'manage', role: 'admin', audit: 'client.delete' },
      schema: { tags, summary: 'Take the client off: its archive link stops and no more reports are made; the agent stays', params: agentParams, response: { 200: single(clientReply), ...commonErrors } },
    },
    async (request) => ({ data: await deleteClient(ctx, request.auth, request.params.id) }),
  );

  app.post(
    '/agents/:id/client/report-link',
    {
      config: { scope: 'manage', role: 'admin', audit: 'client.report_link' },
      schema: { tags, summary: 'A new archive link; the old one stops at once, also in reports already sent', params: agentParams, response: { 200: single(clientReply), ...commonErrors } },
    },
    async (request) => ({ data: await rotateReportLink(ctx, request.auth, request.params.id) }),
  );
}
