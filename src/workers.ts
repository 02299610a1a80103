import type { Context } from './context.ts';
import { analyticsWorker } from './modules/analytics/jobs.ts';
import { crawlWorker } from './modules/knowledge/crawl/jobs.ts';
import { knowledgeWorker } from './modules/knowledge/reading.ts';
import { leadsWorker } from './modules/leads/jobs.ts';
import { mailWorker } from './modules/mail/delivery.ts';
import { ticketsWorker } from './modules/tickets/jobs.ts';
import { visitorFilesWorker } from './modules/visitor-files/jobs.ts';
import { webhooksWorker } from './modules/webhooks/jobs.ts';
import { clientsWorker } from './modules/clients/jobs.ts';
import { emailWorker } from './modules/email-channel/jobs.ts';

/** A background area: declares its kinds of job and works on them in worker processes. */
export type WorkerModule = (ctx: Context) => Promise<void>;

/** Each area that has background jobs adds its starter here with one line. */
export const workerModules: WorkerModule[] = [
  crawlWorker,
  knowledgeWorker,
  leadsWorker,
  mailWorker,
  ticketsWorker,
  visitorFilesWorker,
  webhooksWorker,
  clientsWorker,
  emailWorker,
  analyticsWorker,
];

export async function startWorkers(ctx: Context): Promise<void> {
  for (const start of workerModules) await start(ctx);
}
