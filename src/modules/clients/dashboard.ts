/**
 * Client reports handled in the dashboard (spec 1.5; docs/people.md, "Client
 * reports"): a report sent now, and the reports held for review listed,
 * previewed as their PDF, released (mailed) or discarded. The agency plan's rule
 * holds for people as for keys (402 clients_not_in_plan); every role may (reports
 * carry no fees), but a member limited to some agents is refused as on the client
 * routes (403 on their agents, 404 on the others).
 */
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { utcMonth } from '../../platform/clock.ts';
import { randomBase62 } from '../../platform/ids.ts';
import { audit } from '../people/service.ts';
import { isLimitedToAgents, requireAgentReach, type PersonCaller } from '../../domain/principal.ts';
import { monthBefore, renderReportPdf, reportContent, reportMail, transcriptsPdf, type ReportContent } from './report.ts';
import * as store from './store.ts';

async function clientOf(ctx: Context, caller: PersonCaller, agentId: string): Promise<store.Client> {
  if (!caller.plan.clients) throw errors.clientsNotInPlan();
  // As on the client routes (./service.ts): a member limited to some agents may not see clients, theirs included.
  if (isLimitedToAgents(caller)) {
    requireAgentReach(caller, agentId);
    throw errors.forbidden('A member limited to some agents may not see or change clients.');
  }
  const client = await store.findClient(ctx.db, caller.workspaceId, agentId);
  if (!client) throw errors.notFound('client');
  return client;
}

/** The mail of a made report, to the client, from the agent; replies go to the client's reply-to address. */
async function reportMailFor(ctx: Context, client: store.Client, month: string, pdf: Buffer, made?: ReportContent) {
  const content = made ?? (await reportContent(ctx, client, month));
  const transcripts = client.transcripts ? await transcriptsPdf(ctx, client, month, content.agentName) : null;
  return { to: client.email, fromName: content.agentName, replyTo: client.reply_to ?? undefined, ...reportMail(content, pdf, transcripts) };
}

/**
 * Makes the report of the latest complete UTC month and mails it to the client
 * now, held for review or not (a person sending it has reviewed it). The
 * month's report row becomes this one, sent: a report of that month made,
 * held or in the making is replaced (an attempt under way then records
 * nothing), so the month's report reaches the client once more, from here.
 */
export async function sendReportNowAsPerson(ctx: Context, caller: PersonCaller, agentId: string, requestId: string) {
  const client = await clientOf(ctx, caller, agentId);
  const now = ctx.clock.now();
  const month = monthBefore(utcMonth(now));
  const content = await reportContent(ctx, client, month);
  const pdf = await renderReportPdf(content);
  const mail = await reportMailFor(ctx, client, month, pdf, content);
  const { reportId, mailId } = await ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('client_reports')
      .values({
        id: `rep_${randomBase62(20)}`,
        client_id: client.id,
        workspace_id: client.workspace_id,
        agent_id: client.agent_id,
        month,
        status: 'sent',
        language: client.language,
        attempts: 0,
        lease_until: null,
        last_error: null,
        pdf,
        created_at: now,
        finished_at: now,
      })
      .onConflict((oc) => oc.columns(['client_id', 'month']).doUpdateSet({ status: 'sent', pdf, language: client.language, finished_at: now, lease_until: null, last_error: null }))
      .returning('id')
      .executeTakeFirstOrThrow();
    const mailId = await ctx.mailer.record(trx, mail);
    return { reportId: row.id, mailId };
  });
  await ctx.mailer.dispatch([mailId]);
  await audit(ctx, caller, 'client.report.send', reportId, requestId);
  return reportView((await store.findReport(ctx.db, reportId))!);
}

/** The client's reports, newest month first; `status` picks one kind (held: those waiting for review). */
export async function listReportsAsPerson(ctx: Context, caller: PersonCaller, agentId: string, status?: store.ReportStatus) {
  const client = await clientOf(ctx, caller, agentId);
  let query = ctx.db
    .selectFrom('client_reports')
    .select(['id', 'month', 'status', 'created_at', 'finished_at', 'last_error'])
    .where('client_id', '=', client.id);
  if (status) query = query.where('status', '=', status);
  const rows = await query.orderBy('month', 'desc').orderBy('id', 'desc').execute();
  return rows.map(reportView);
}

/** A made report's PDF (held or sent), as the client gets or would get it. */
export async function reportPdfAsPerson(ctx: Context, caller: PersonCaller, agentId: string, reportId: string) {
  const client = await clientOf(ctx, caller, agentId);
  const row = await ctx.db.selectFrom('client_reports').select(['month', 'pdf']).where('client_id', '=', client.id).where('id', '=', reportId).executeTakeFirst();
  if (!row?.pdf) throw errors.notFound('report');
  return { month: row.month, pdf: Buffer.from(row.pdf) };
}

/** Releases a held report: mailed to the client with the PDF made then, and listed in their archive from now on. */
export async function releaseReportAsPerson(ctx: Context, caller: PersonCaller, agentId: string, reportId: string, requestId: string) {
  const client = await clientOf(ctx, caller, agentId);
  const held = await heldReport(ctx, client, reportId);
  const mail = await reportMailFor(ctx, client, held.month, Buffer.from(held.pdf!));
  const mailId = await ctx.db.transaction().execute(async (trx) => {
    // Only while it is still held: two people releasing it at once mail it once.
    const released = await trx
      .updateTable('client_reports')
      .set({ status: 'sent', finished_at: ctx.clock.now() })
      .where('id', '=', reportId)
      .where('status', '=', 'held')
      .executeTakeFirst();
    if (Number(released.numUpdatedRows) === 0) throw errors.notFound('report');
    return ctx.mailer.record(trx, mail);
  });
  await ctx.mailer.dispatch([mailId]);
  await audit(ctx, caller, 'client.report.release', reportId, requestId);
  return reportView((await store.findReport(ctx.db, reportId))!);
}

/** Discards a held report: never mailed nor listed in the archive; the month's report is not made again. */
export async function discardReportAsPerson(ctx: Context, caller: PersonCaller, agentId: string, reportId: string, requestId: string) {
  const client = await clientOf(ctx, caller, agentId);
  await heldReport(ctx, client, reportId);
  const discarded = await ctx.db
    .updateTable('client_reports')
    .set({ status: 'discarded', pdf: null, finished_at: ctx.clock.now() })
    .where('id', '=', reportId)
    .where('status', '=', 'held')
    .executeTakeFirst();
  if (Number(discarded.numUpdatedRows) === 0) throw errors.notFound('report');
  await audit(ctx, caller, 'client.report.discard', reportId, requestId);
  return reportView((await store.findReport(ctx.db, reportId))!);
}

async function heldReport(ctx: Context, client: store.Client, reportId: string) {
  const report = await store.findReport(ctx.db, reportId);
  if (!report || report.client_id !== client.id || report.status !== 'held' || !report.pdf) throw errors.notFound('report');
  return report;
}

function reportView(row: Pick<store.ClientReport, 'id' | 'month' | 'status' | 'created_at' | 'finished_at' | 'last_error'>) {
  return {
    id: row.id,
    month: row.month,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
    error: row.last_error,
  };
}
