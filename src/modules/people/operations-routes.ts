/**
 * The dashboard-only operations of spec 1.5 beyond keys, people and the ticket
 * reply (docs/people.md): notifications, client reports, workspace settings,
 * held e-mail drafts and the audit log. Registered inside peopleRoutes, so the
 * session, CSRF and Origin rules of every /app/api route hold for them.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Context } from '../../context.ts';
import { listAuditAsPerson } from '../audit/dashboard.ts';
import { discardReportAsPerson, listReportsAsPerson, releaseReportAsPerson, reportPdfAsPerson, sendReportNowAsPerson } from '../clients/dashboard.ts';
import { discardHeldDraftAsPerson, heldDraftsAsPerson, sendHeldDraftAsPerson } from '../email-channel/dashboard.ts';
import { listNotificationsAsPerson, notificationsAsPerson, setNotificationsAsPerson } from './notifications.ts';
import * as schemas from './schemas.ts';
import { describeWorkspaceAsPerson, updateWorkspaceAsPerson } from './workspace-settings.ts';

export function operationsRoutes(parent: FastifyInstance, ctx: Context): void {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const signedIn = { signedIn: true };

  // ------------------------------------------------------------ who is mailed
  app.get('/api/notifications', { config: signedIn, schema: { querystring: schemas.notificationsQuery, response: { 200: schemas.notificationsListReply } } }, async (request) => ({
    data: await listNotificationsAsPerson(ctx, request.person),
    pagination: { nextCursor: null },
  }));
  app.get('/api/agents/:agentId/notifications', { config: signedIn, schema: { params: schemas.agentParams, response: { 200: schemas.agentNotificationsReply } } }, async (request) => ({
    data: await notificationsAsPerson(ctx, request.person, request.params.agentId),
  }));
  app.put(
    '/api/agents/:agentId/notifications',
    { config: signedIn, schema: { params: schemas.agentParams, body: schemas.notificationsBody, response: { 200: schemas.agentNotificationsReply } } },
    async (request) => ({ data: await setNotificationsAsPerson(ctx, request.person, request.params.agentId, request.body, request.id) }),
  );

  // ------------------------------------------------------------ client reports
  app.post('/api/agents/:agentId/client/report', { config: signedIn, schema: { params: schemas.agentParams, response: { 201: schemas.reportReply } } }, async (request, reply) =>
    reply.status(201).send({ data: await sendReportNowAsPerson(ctx, request.person, request.params.agentId, request.id) }),
  );
  app.get(
    '/api/agents/:agentId/client/reports',
    { config: signedIn, schema: { params: schemas.agentParams, querystring: schemas.reportListQuery, response: { 200: schemas.reportListReply } } },
    async (request) => ({ data: await listReportsAsPerson(ctx, request.person, request.params.agentId, request.query.status), pagination: { nextCursor: null } }),
  );
  app.get('/api/agents/:agentId/client/reports/:reportId/pdf', { config: signedIn, schema: { params: schemas.reportParams } }, async (request, reply) => {
    const { month, pdf } = await reportPdfAsPerson(ctx, request.person, request.params.agentId, request.params.reportId);
    return reply
      .header('content-type', 'application/pdf')
      .header('content-disposition', `inline; filename="report-${month}.pdf"`)
      .header('cache-control', 'private, no-store')
      .send(pdf);
  });
  app.post('/api/agents/:agentId/client/reports/:reportId/release', { config: signedIn, schema: { params: schemas.reportParams, response: { 200: schemas.reportReply } } }, async (request) => ({
    data: await releaseReportAsPerson(ctx, request.person, request.params.agentId, request.params.reportId, request.id),
  }));
  app.post('/api/agents/:agentId/client/reports/:reportId/discard', { config: signedIn, schema: { params: schemas.reportParams, response: { 200: schemas.reportReply } } }, async (request) => ({
    data: await discardReportAsPerson(ctx, request.person, request.params.agentId, request.params.reportId, request.id),
  }));

  // ------------------------------------------------------------ workspace settings
  app.get('/api/workspace', { config: signedIn, schema: { response: { 200: schemas.workspaceSettingsReply } } }, async (request) => ({ data: await describeWorkspaceAsPerson(ctx, request.person) }));
  app.patch(
    '/api/workspace',
    { config: signedIn, schema: { body: schemas.workspaceSettingsBody, response: { 200: schemas.workspaceSettingsReply } } },
    async (request) => ({ data: await updateWorkspaceAsPerson(ctx, request.person, request.body, request.id) }),
  );

  // ------------------------------------------------------------ held e-mail drafts
  app.get('/api/agents/:agentId/tickets/:ticketId/drafts', { config: signedIn, schema: { params: schemas.ticketParams, response: { 200: schemas.heldDraftListReply } } }, async (request) => ({
    data: await heldDraftsAsPerson(ctx, request.person, request.params.agentId, request.params.ticketId),
    pagination: { nextCursor: null },
  }));
  app.post(
    '/api/agents/:agentId/tickets/:ticketId/drafts/:messageId/send',
    { config: signedIn, schema: { params: schemas.draftParams, body: schemas.draftSendBody, response: { 200: schemas.draftSentReply } } },
    async (request) => ({
      data: await sendHeldDraftAsPerson(ctx, request.person, request.params.agentId, request.params.ticketId, request.params.messageId, request.body.text, request.id),
    }),
  );
  app.post('/api/agents/:agentId/tickets/:ticketId/drafts/:messageId/discard', { config: signedIn, schema: { params: schemas.draftParams, response: { 200: schemas.draftDiscardedReply } } }, async (request) => ({
    data: await discardHeldDraftAsPerson(ctx, request.person, request.params.agentId, request.params.ticketId, request.params.messageId, request.id),
  }));

  // ------------------------------------------------------------ the audit log
  app.get(
    '/api/audit',
    { config: signedIn, schema: { querystring: schemas.auditQuery, response: { 200: schemas.auditListReply } } },
    async (request) => {
      const { items, nextCursor } = await listAuditAsPerson(ctx, request.person, request.query);
      return { data: items, pagination: { nextCursor } };
    },
  );
}
