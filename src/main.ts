import module from 'node:module';
import { loadConfig } from './config.ts';
import { createContext } from './context.ts';
import { buildApp } from './app.ts';
import { bootstrap } from './bootstrap.ts';
import { lockDataDir } from './platform/data-dir-lock.ts';

/** Where the owner's mail (sign-in links, new leads, tickets, notices) goes, and how to read it without a mail server. */
function ownerMailLines(smtp: boolean, ownerEmail: string, workspaceId: string): string[] {
  return [
    `Owner mail: sign-in links, new leads, tickets and notices go to the owner's address, ${ownerEmail} (PARLEY_OWNER_EMAIL); another owner:`,
    `  npx parley admin workspaces update ${workspaceId} --owner-email you@example.com`,
    smtp
      ? '  Mail is sent through SMTP_URL.'
      : '  No SMTP_URL is set, so mail is kept in the outbox, not sent. Read it: npx parley admin outbox (or GET /admin/v1/outbox with the operator token).',
    '',
  ];
}

/** Starts the roles the configuration asks for; stops gracefully on SIGINT and SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig();
  const unlock = config.databaseUrl ? undefined : await lockDataDir(config.dataDir);
  const ctx = await createContext(config);
  if (unlock) ctx.onClose(unlock);

  const firstStart = await bootstrap(ctx);
  // The job handlers (file reading, crawls, reports, webhooks) load only in a role that runs them.
  if (config.role !== 'api') await (await import('./workers.ts')).startWorkers(ctx);
  const app = config.role === 'worker' ? undefined : await buildApp(ctx);
  if (app) await app.listen({ port: config.port, host: config.host });
  // The e-mail channel's SMTP server runs beside the API (docs/email.md).
  // The SMTP server and mail parsers load only where the e-mail channel is on.
  const mailInbound =
    app && config.mailInboundPort
      ? await (await import('./modules/email-channel/inbound.ts')).startMailInbound(ctx, { port: config.mailInboundPort, host: config.mailInboundHost })
      : undefined;
  if (mailInbound) {
    const tls = mailInbound.tls === 'files' ? 'STARTTLS with PARLEY_MAIL_TLS_CERT' : mailInbound.tls === 'self-signed' ? 'STARTTLS with a self-signed certificate' : 'no STARTTLS';
    console.log(`Receiving mail for the agents on ${config.mailInboundHost}:${mailInbound.port} (${tls})`);
  }

  // What start-up compiled goes to the compile cache now (src/compile-cache.js), not only at a graceful exit.
  module.flushCompileCache?.();

  console.log(`Parley ${config.role === 'worker' ? 'worker' : `listening on ${config.publicUrl}`} (${ctx.database.kind} database, role ${config.role})`);
  if (app) console.log(`API reference: ${config.publicUrl}/docs`);
  if (firstStart) {
    console.log('\nFirst start: a "Demo" workspace was created (studio plan).');
    console.log(`  Workspace id:                ${firstStart.workspaceId}`);
    console.log(`  Manage key (shown once):     ${firstStart.manageKey}`);
    if (firstStart.adminToken) console.log(`  Operator token (shown once): ${firstStart.adminToken}`);
    console.log(`  Sign-in link (24 hours):     ${firstStart.signInLink}`);
    console.log(`  Try: curl -H "Authorization: Bearer ${firstStart.manageKey}" ${config.publicUrl}/api/v1/workspace`);
    console.log(`       npx parley admin keys create ${firstStart.workspaceId} --name "CRM sync" --scope read\n`);
    for (const line of ownerMailLines(config.smtpUrl !== undefined, config.ownerEmail, firstStart.workspaceId)) console.log(line);
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    await mailInbound?.close();
    await app?.close();
    await ctx.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
