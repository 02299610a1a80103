import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { commonErrors, single } from '../../http/schemas.ts';
import { agentParams } from '../agents/schemas.ts';
import { addNote, changeStatus, getTicket, listTickets, openTicket } from './service.ts';
import { entrySchema, noteBody, openedTicketReply, openTicketBody, ticketListQuery, ticketListReply, ticketParams, ticketSchema, ticketStatusBody, ticketWithEntriesSchema } from './schemas.ts';

const tags = ['tickets'];

/** The team's ticket routes under /api/v1 (spec 4.11). */
export async function ticketRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/agents/:id/tickets',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'Tickets, most recent activity first, with the counts per status',
        params: agentParams,
        querystring: ticketListQuery,
        response: { 200: ticketListReply, ...commonErrors },
      },
    },
    async (request) => {
      const page = await listTickets(ctx, request.auth, request.params.id, request.query);
      return { data: page.items, pagination: { nextCursor: page.nextCursor }, counts: page.counts };
    },
  );

  app.get(
    '/agents/:id/tickets/:ticketId',
    {
      config: { scope: 'read' },
      schema: { tags, summary: 'One ticket with its entries, oldest first', params: ticketParams, querystring: z.strictObject({}), response: { 200: single(ticketWithEntriesSchema), ...commonErrors } },
    },
    async (request) => ({ data: await getTicket(ctx, request.auth, request.params.id, request.params.ticketId) }),
  );

  app.patch(
    '/agents/:id/tickets/:ticketId',
    {
      config: { scope: 'manage', audit: 'ticket.update' },
      schema: { tags, summary: 'Change a ticket’s status (nothing is mailed)', params: ticketParams, body: ticketStatusBody, response: { 200: single(ticketSchema), ...commonErrors } },
    },
    async (request) => ({ data: await changeStatus(ctx, request.auth, request.params.id, request.params.ticketId, request.body.status) }),
  );

  app.post(
    '/agents/:id/tickets/:ticketId/notes',
    {
      config: { scope: 'manage', audit: 'ticket.note' },
      schema: { tags, summary: 'Add a note only the team sees', params: ticketParams, body: noteBody, response: { 201: single(entrySchema), ...commonErrors } },
    },
    async (request, reply) => reply.status(201).send({ data: await addNote(ctx, request.auth, request.params.id, request.params.ticketId, request.body.body) }),
  );
}

/** The visitor's ticket route under /visitor/v1 (operator contract, "Visitor API"). */
export async function ticketVisitorRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/agents/:agentId/tickets',
    {
      schema: {
        tags: ['visitor'],
        summary: 'Open a support ticket',
        params: z.strictObject({ agentId: z.string().max(100) }),
        body: openTicketBody,
        response: { 201: single(openedTicketReply), ...commonErrors },
      },
    },
    async (request, reply) => {
      const token = request.headers['x-visitor-token'];
      const ticket = await openTicket(ctx, request.visitor, request.body, typeof token === 'string' ? token : undefined);
      return reply.status(201).send({ data: ticket });
    },
  );
}
