/**
 * The dashboard-only operations of spec 1.5 beyond keys, people and the ticket
 * reply (docs/people.md): notifications, client reports, workspace settings,
 * held e-mail drafts and the audit log. Registered inside peopleRoutes, so the
 * session, CSRF and Origin rules of every /app/api route hold for them.
 */
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Context } from '../../context.ts';
import { pageQuery, queryTime } from '../../domain/paging.ts';
import { isOneLine, ONE_LINE_MESSAGE, withoutBidiControls } from '../../domain/text.ts';
import { languageSchema } from '../agents/schemas.ts';
import { listAuditAsPerson } from '../audit/dashboard.ts';
import { discardReportAsPerson, listReportsAsPerson, releaseReportAsPerson, reportPdfAsPerson, sendReportNowAsPerson } from '../clients/dashboard.ts';
import { REPORT_STATUSES } from '../clients/store.ts';
import { discardHeldDraftAsPerson, heldDraftsAsPerson, sendHeldDraftAsPerson } from '../email-channel/dashboard.ts';
import { listNotificationsAsPerson, notificationsAsPerson, setNotificationsAsPerson } from './notifications.ts';
import { describeWorkspaceAsPerson, updateWorkspaceAsPerson } from './workspace-settings.ts';

const id = z.string().max(64);
const personIds = z.array(id).max(200).nullable().optional();
const recipientsSchema = z.strictObject({ chosen: z.boolean(), people: z.array(z.strictObject({ id: z.string(), email: z.string(), name: z.string() })) });
/** GET /app/api/notifications: who is mailed about each agent the person reaches, all at once. */
const notificationsListSchema = z.strictObject({
  data: z.array(z.strictObject({ agentId: z.string(), leads: recipientsSchema, tickets: recipientsSchema })),
  pagination: z.strictObject({ nextCursor: z.null() }),
});

export function operationsRoutes(parent: FastifyInstance, ctx: Context): void {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const signedIn = { signedIn: true };
  const agentParams = z.object({ agentId: id });

  // ------------------------------------------------------------ who is mailed
  app.get('/api/notifications', { config: signedIn, schema: { querystring: z.strictObject({}), response: { 200: notificationsListSchema } } }, async (request) => ({
    data: await listNotificationsAsPerson(ctx, request.person),
    pagination: { nextCursor: null },
  }));
  app.get('/api/agents/:agentId/notifications', { config: signedIn, schema: { params: agentParams } }, async (request) => ({
    data: await notificationsAsPerson(ctx, request.person, request.params.agentId),
  }));
  app.put(
    '/api/agents/:agentId/notifications',
    { config: signedIn, schema: { params: agentParams, body: z.strictObject({ leads: personIds, tickets: personIds }) } },
    async (request) => ({ data: await setNotificationsAsPerson(ctx, request.person, request.params.agentId, request.body, request.id) }),
  );

  // ------------------------------------------------------------ client reports
  const reportParams = z.object({ agentId: id, reportId: id });
  app.post('/api/agents/:agentId/client/report', { config: signedIn, schema: { params: agentParams } }, async (request, reply) =>
    reply.status(201).send({ data: await sendReportNowAsPerson(ctx, request.person, request.params.agentId, request.id) }),
  );
  app.get(
    '/api/agents/:agentId/client/reports',
    { config: signedIn, schema: { params: agentParams, querystring: z.strictObject({ status: z.enum(REPORT_STATUSES).optional() }) } },
    async (request) => ({ data: await listReportsAsPerson(ctx, request.person, request.params.agentId, request.query.status), pagination: { nextCursor: null } }),
  );
  app.get('/api/agents/:agentId/client/reports/:reportId/pdf', { config: signedIn, schema: { params: reportParams } }, async (request, reply) => {
    const { month, pdf } = await reportPdfAsPerson(ctx, request.person, request.params.agentId, request.params.reportId);
    return reply
      .header('content-type', 'application/pdf')
      .header('content-disposition', `inline; filename="report-${month}.pdf"`)
      .header('cache-control', 'private, no-store')
      .send(pdf);
  });
  app.post('/api/agents/:agentId/client/reports/:reportId/release', { config: signedIn, schema: { params: reportParams } }, async (request) => ({
    data: await releaseReportAsPerson(ctx, request.person, request.params.agentId, request.params.reportId, request.id),
  }));
  app.post('/api/agents/:agentId/client/reports/:reportId/discard', { config: signedIn, schema: { params: reportParams } }, async (request) => ({
    data: await discardReportAsPerson(ctx, request.person, request.params.agentId, request.params.reportId, request.id),
  }));

  // ------------------------------------------------------------ workspace settings
  app.get('/api/workspace', { config: signedIn }, async (request) => ({ data: await describeWorkspaceAsPerson(ctx, request.person) }));
  app.patch(
    '/api/workspace',
    {
      config: signedIn,
      schema: {
        body: z.strictObject({
          // Written into mails (sign-in links, invitations): one line, without bidi controls.
          name: z
            .string()
            .max(100)
            .refine(isOneLine, ONE_LINE_MESSAGE)
            .transform((name) => withoutBidiControls(name).trim())
            .pipe(z.string().min(1))
            .optional(),
          language: languageSchema.optional(),
        }),
      },
    },
    async (request) => ({ data: await updateWorkspaceAsPerson(ctx, request.person, request.body, request.id) }),
  );

  // ------------------------------------------------------------ held e-mail drafts
  const ticketParams = z.object({ agentId: id, ticketId: id });
  const draftParams = z.object({ agentId: id, ticketId: id, messageId: id });
  app.get('/api/agents/:agentId/tickets/:ticketId/drafts', { config: signedIn, schema: { params: ticketParams } }, async (request) => ({
    data: await heldDraftsAsPerson(ctx, request.person, request.params.agentId, request.params.ticketId),
    pagination: { nextCursor: null },
  }));
  app.post(
    '/api/agents/:agentId/tickets/:ticketId/drafts/:messageId/send',
    { config: signedIn, schema: { params: draftParams, body: z.strictObject({ text: z.string().trim().min(1).max(10_000).optional() }) } },
    async (request) => ({
      data: await sendHeldDraftAsPerson(ctx, request.person, request.params.agentId, request.params.ticketId, request.params.messageId, request.body.text, request.id),
    }),
  );
  app.post('/api/agents/:agentId/tickets/:ticketId/drafts/:messageId/discard', { config: signedIn, schema: { params: draftParams } }, async (request) => ({
    data: await discardHeldDraftAsPerson(ctx, request.person, request.params.agentId, request.params.ticketId, request.params.messageId, request.id),
  }));

  // ------------------------------------------------------------ the audit log
  app.get(
    '/api/audit',
    {
      config: signedIn,
      schema: {
        querystring: z.strictObject({
          personId: id.optional(),
          keyId: id.optional(),
          action: z.string().max(100).optional(),
          from: queryTime.optional(),
          to: queryTime.optional(),
          ...pageQuery,
        }),
      },
    },
    async (request) => {
      const { items, nextCursor } = await listAuditAsPerson(ctx, request.person, request.query);
      return { data: items, pagination: { nextCursor } };
    },
  );
}
