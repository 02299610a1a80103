/**
 * Monthly reports (docs/clients.md, "When reports are made"). A sweep in every worker
 * (every minute, at start and whenever the test clock moves) finds each client whose
 * report day has come since reports were switched on and whose report of the month
 * before has no row yet; it claims the row (unique per client and month: whoever
 * inserts it first makes the report) and queues a job for it. The job takes the row
 * for one attempt under a lease and records the finished report together with its
 * mail in one transaction, so a report is mailed exactly once: a worker that dies
 * mid-way leaves the row to be taken again when its lease runs out, and the sweep
 * queues it again. A service that was down on the report day catches up at start.
 */
import type { Context } from '../../context.ts';
import { utcMonth } from '../../platform/clock.ts';
import { compose } from '../mail/compose.ts';
import { runPeriodically } from '../../platform/periodic.ts';
import { randomBase62 } from '../../platform/ids.ts';
import { dashboardPages, NOTICE_KINDS, noticeRecipients, recordNotices } from '../people/notifications.ts';
import { renderReportPdf, reportContent, reportMail, transcriptsPdf } from './report.ts';
import * as store from './store.ts';
import { HELD_NOTICE, monthName } from './texts.ts';

export const REPORT_JOB = 'clients.report';
const REPORT_QUEUE = { retryLimit: 0, expireInSeconds: 15 * 60 };
const SWEEP_EVERY_MS = 60_000;
/** An attempt's claim; a longer attempt than this (500 transcripts take seconds) is taken to have died. */
const LEASE_SECONDS = 10 * 60;
/** After a failed attempt the report is tried again this much later, at most MAX_ATTEMPTS times. */
const RETRY_SECONDS = 5 * 60;
export const MAX_ATTEMPTS = 5;
const BATCH = 500;
/** A queued job's time to take its report before the sweep queues the report again (a job lost with a crashed process). */
const QUEUED_SECONDS = 5 * 60;

export interface ReportJob {
  v: 1;
  reportId: string;
}

/**
 * The latest report day that has come for a client at `now`, and the month its report is
 * about (the month before that day's month).
 */
export function latestReportDay(now: Date, reportDay: number): { at: Date; month: string } {
  const thisMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), reportDay));
  const at = now >= thisMonth ? thisMonth : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, reportDay));
  return { at, month: utcMonth(new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - 1, 1))) };
}

/** Claims the reports that have fallen due and queues them, and queues again those whose job or attempt was lost; returns the reports queued. */
export async function sweepReports(ctx: Context): Promise<number> {
  const now = ctx.clock.now();
  const queuedUntil = secondsAfter(now, QUEUED_SECONDS);
  const toQueue: string[] = [];
  let after: string | null = null;
  for (;;) {
    const clients = await store.clientsWithReportsOn(ctx.db, after, BATCH);
    for (const client of clients) {
      // A workspace stopped or below the agency plan gets no report; back before the next report day, it gets the month's.
      const due = latestReportDay(now, client.report_day);
      // Only report days after reports were switched on: switching on does not make last month's report at once.
      if (!client.runs || !client.reports_enabled_at || client.reports_enabled_at >= due.at) continue;
      if (await store.reportExists(ctx.db, client.id, due.month)) continue;
      const claimed = await store.claimReport(
        ctx.db,
        { id: `rep_${randomBase62(20)}`, client_id: client.id, workspace_id: client.workspace_id, agent_id: client.agent_id, month: due.month, language: client.language, created_at: now },
        queuedUntil,
      );
      if (claimed) toQueue.push(claimed);
    }
    if (clients.length < BATCH) break;
    after = clients.at(-1)!.id;
  }
  toQueue.push(...(await store.requeueStale(ctx.db, now, queuedUntil, BATCH)));
  if (toQueue.length > 0) await ctx.queue.define(REPORT_JOB, REPORT_QUEUE);
  for (const reportId of toQueue) await ctx.queue.send<ReportJob>(REPORT_JOB, { v: 1, reportId });
  return toQueue.length;
}

/**
 * One attempt at one report. A report that is not pending (made, held, or taken by
 * another attempt) is left alone, so a job queued twice does nothing the second time.
 */
export async function makeReport(ctx: Context, reportId: string): Promise<void> {
  const report = await store.startMaking(ctx.db, reportId, secondsAfter(ctx.clock.now(), LEASE_SECONDS));
  if (!report) return;
  const client = await store.findClientById(ctx.db, report.client_id);
  if (!client) return; // taken off meanwhile: its reports went with it
  try {
    const content = await reportContent(ctx, client, report.month);
    const pdf = await renderReportPdf(content);
    const held = client.hold_for_review;
    const transcripts = client.transcripts && !held ? await transcriptsPdf(ctx, client, report.month, content.agentName) : null;
    // Held: the people chosen for the agent who may release it are told, else the owner (docs/people.md, "Notifications").
    const recipients = held ? await noticeRecipients(ctx.db, client.workspace_id, [client.agent_id], NOTICE_KINDS, { managersOnly: true }) : undefined;
    const mailIds = await ctx.db.transaction().execute(async (trx) => {
      // An attempt that outlived its lease finds the report taken by the next one and records nothing.
      if (!(await store.finishReport(trx, report.id, report.attempts, held ? 'held' : 'sent', pdf, ctx.clock.now()))) return [];
      if (recipients) {
        const { language } = recipients;
        const notice = HELD_NOTICE[language];
        const month = monthName(language, report.month);
        const blocks = [{ text: notice.body(client.name, month) }, { text: notice.review, link: dashboardPages.client(ctx, client.agent_id) }];
        return recordNotices(ctx, trx, recipients, compose(language, { subject: notice.subject(client.name, month), blocks }));
      }
      const mail = reportMail(content, pdf, transcripts);
      return [await ctx.mailer.record(trx, { to: client.email, fromName: content.agentName, replyTo: client.reply_to ?? undefined, ...mail })];
    });
    await ctx.mailer.dispatch(mailIds);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`[clients] report ${report.id} attempt ${report.attempts} failed: ${message}`);
    if (report.attempts >= MAX_ATTEMPTS) await store.giveUpReport(ctx.db, report.id, report.attempts, message);
    else await store.recordReportFailure(ctx.db, report.id, report.attempts, message, secondsAfter(ctx.clock.now(), RETRY_SECONDS));
  }
}

function secondsAfter(at: Date, seconds: number): Date {
  return new Date(at.getTime() + seconds * 1000);
}

/** The worker starter (src/workers.ts). */
export async function clientsWorker(ctx: Context): Promise<void> {
  await ctx.queue.define(REPORT_JOB, REPORT_QUEUE);
  await ctx.queue.work<ReportJob>(REPORT_JOB, (job) => makeReport(ctx, job.reportId));
  const sweep = runPeriodically({ name: 'clients', everyMs: SWEEP_EVERY_MS, testClock: ctx.testClock }, () => sweepReports(ctx));
  ctx.onClose(sweep.stop);
}
