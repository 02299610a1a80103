import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Context } from '../../context.ts';
import { commonErrors, list, single } from '../../http/schemas.ts';
import { agentParams } from '../agents/schemas.ts';
import { createLead, deleteLead, getLead, listLeads } from './service.ts';
import { leadsCsv } from './csv.ts';
import { createdLeadSchema, createLeadBody, leadListQuery, leadParams, leadSchema, visitorAgentParams } from './schemas.ts';

const tags = ['leads'];

/** The team's lead routes under /api/v1 (spec 4.10). */
export async function leadRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/agents/:id/leads',
    {
      config: { scope: 'read' },
      schema: { tags, summary: 'Leads, newest first', params: agentParams, querystring: leadListQuery, response: { 200: list(leadSchema), ...commonErrors } },
    },
    async (request) => {
      const page = await listLeads(ctx, request.auth, request.params.id, request.query);
      return { data: page.items, pagination: { nextCursor: page.nextCursor } };
    },
  );

  // Declared before /leads/:leadId only for reading order: the paths differ in their segment (leads.csv, leads).
  app.get(
    '/agents/:id/leads.csv',
    {
      config: { scope: 'read', audit: 'lead.export' },
      // Not JSON, so neither in the OpenAPI document nor an MCP tool (one tool per documented operation); docs/visitors.md.
      schema: { hide: true, params: agentParams, querystring: z.strictObject({}) },
    },
    async (request, reply) => {
      const csv = await leadsCsv(ctx, request.auth, request.params.id);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${csv.fileName}"`)
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .send(csv.body);
    },
  );

  app.get(
    '/agents/:id/leads/:leadId',
    {
      config: { scope: 'read' },
      schema: { tags, summary: 'One lead', params: leadParams, querystring: z.strictObject({}), response: { 200: single(leadSchema), ...commonErrors } },
    },
    async (request) => ({ data: await getLead(ctx, request.auth, request.params.id, request.params.leadId) }),
  );

  app.delete(
    '/agents/:id/leads/:leadId',
    {
      config: { scope: 'manage', audit: 'lead.delete' },
      schema: {
        tags,
        summary: 'Erase a lead (its conversation stays)',
        params: leadParams,
        response: { 200: single(z.object({ id: z.string(), deleted: z.literal(true) })), ...commonErrors },
      },
    },
    async (request) => ({ data: await deleteLead(ctx, request.auth, request.params.id, request.params.leadId) }),
  );
}

/** The visitor's lead route under /visitor/v1 (operator contract, "Visitor API"). */
export async function leadVisitorRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/agents/:agentId/leads',
    {
      schema: {
        tags: ['visitor'],
        summary: "Leave contact details in the agent's lead form",
        params: visitorAgentParams,
        body: createLeadBody,
        response: { 201: single(createdLeadSchema), ...commonErrors },
      },
    },
    async (request, reply) => {
      const token = request.headers['x-visitor-token'];
      const lead = await createLead(ctx, request.visitor, request.body, typeof token === 'string' ? token : undefined);
      return reply.status(201).send({ data: lead });
    },
  );
}
