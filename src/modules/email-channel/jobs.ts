/**
 * The e-mail channel's background work: the agents' IMAP mailboxes looked into every
 * PARLEY_MAIL_IMAP_POLL_SECONDS (and whenever the test clock moves) by the worker
 * processes (docs/email.md, "IMAP"). The IMAP client and mail parsers load with the
 * first mailbox, not in every worker.
 */
import type { Context } from '../../context.ts';
import { runPeriodically } from '../../platform/periodic.ts';
import { mailboxAgents } from './mailbox.ts';

export async function emailWorker(ctx: Context): Promise<void> {
  const looks = runPeriodically({ name: 'email-imap', everyMs: ctx.config.mailImapPollSeconds * 1000, testClock: ctx.testClock }, async () => {
    if ((await mailboxAgents(ctx.db)).length === 0) return;
    await (await import('./imap.ts')).lookIntoMailboxes(ctx);
  });
  ctx.onClose(() => looks.stop());
}
