import type { Selectable } from 'kysely';
import type { Db } from '../../platform/db.ts';
import '../agents/store.ts'; // declares the agents table read below
import '../tickets/store.ts'; // declares the tickets table counted below
import { planOf } from '../../domain/plans.ts';

/** discarded: a held report a person discarded in the dashboard (never mailed; the month is not made again). */
export const REPORT_STATUSES = ['pending', 'making', 'held', 'sent', 'failed', 'discarded'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

export interface ClientRow {
  id: string;
  workspace_id: string;
  agent_id: string;
  name: string;
  email: string;
  language: string;
  /** numeric: the drivers hand it back as text. */
  service_fee_eur: string | number | null;
  setup_fee_eur: string | number | null;
  intro: string;
  signature: string;
  report_day: number;
  transcripts: boolean;
  reports_enabled: boolean;
  reports_enabled_at: Date | null;
  hold_for_review: boolean;
  reply_to: string | null;
  link_token: string;
  link_fingerprint: string;
  since: Date;
  updated_at: Date;
}

export interface ClientReportRow {
  id: string;
  client_id: string;
  workspace_id: string;
  agent_id: string;
  month: string;
  status: ReportStatus;
  language: string;
  attempts: number;
  lease_until: Date | null;
  last_error: string | null;
  pdf: Uint8Array | null;
  created_at: Date;
  finished_at: Date | null;
}

declare module '../../platform/db.ts' {
  interface Tables {
    clients: ClientRow;
    client_reports: ClientReportRow;
  }
}

export type Client = Selectable<ClientRow>;
export type ClientReport = Selectable<ClientReportRow>;

/** The agent's client, in the caller's workspace. */
export async function findClient(db: Db, workspaceId: string, agentId: string): Promise<Client | undefined> {
  return db.selectFrom('clients').selectAll().where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).executeTakeFirst();
}

export async function findClientById(db: Db, clientId: string): Promise<Client | undefined> {
  return db.selectFrom('clients').selectAll().where('id', '=', clientId).executeTakeFirst();
}

/**
 * The client whose archive link has this fingerprint: a rotated or deleted link finds
 * none, nor does one of a workspace that is stopped or no longer on a plan with clients.
 */
export async function findClientByLink(db: Db, linkFingerprint: string): Promise<Client | undefined> {
  const row = await db
    .selectFrom('clients as c')
    .innerJoin('workspaces as w', 'w.id', 'c.workspace_id')
    .selectAll('c')
    .select(['w.plan as workspace_plan', 'w.status as workspace_status'])
    .where('c.link_fingerprint', '=', linkFingerprint)
    .executeTakeFirst();
  if (!row || !runsClients(row.workspace_plan, row.workspace_status)) return undefined;
  const { workspace_plan: _plan, workspace_status: _status, ...client } = row;
  return client;
}

/** A stopped workspace does nothing, and one below the agency plan has no clients (their records wait for its return). */
function runsClients(plan: string, status: string): boolean {
  return status !== 'stopped' && planOf(plan).clients;
}

export async function insertClient(db: Db, row: ClientRow): Promise<Client> {
  return db.insertInto('clients').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateClient(db: Db, clientId: string, changes: Partial<ClientRow>): Promise<Client> {
  return db.updateTable('clients').set(changes).where('id', '=', clientId).returningAll().executeTakeFirstOrThrow();
}

export async function deleteClient(db: Db, workspaceId: string, agentId: string): Promise<boolean> {
  const deleted = await db.deleteFrom('clients').where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

// ---------------------------------------------------------------- reports

/**
 * Claims the report of a client and month: the row is written once, whoever asks
 * first; undefined when it already exists. The claimer queues its job: until
 * `queuedUntil` the sweep leaves the row to that job.
 */
export async function claimReport(
  db: Db,
  row: Pick<ClientReportRow, 'id' | 'client_id' | 'workspace_id' | 'agent_id' | 'month' | 'language' | 'created_at'>,
  queuedUntil: Date,
): Promise<string | undefined> {
  const inserted = await db
    .insertInto('client_reports')
    .values({ ...row, status: 'pending', attempts: 0, lease_until: queuedUntil, last_error: null, pdf: null, finished_at: null })
    .onConflict((oc) => oc.columns(['client_id', 'month']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted?.id;
}

/**
 * Reports whose job was lost or whose attempt died (their lease has run out), taken
 * back to pending for a new job in one statement, so two sweeps never both queue one.
 */
export async function requeueStale(db: Db, now: Date, queuedUntil: Date, limit: number): Promise<string[]> {
  const stale = db
    .selectFrom('client_reports')
    .select('id')
    .where('status', 'in', ['pending', 'making'])
    .where('lease_until', '<=', now)
    .orderBy('created_at')
    .limit(limit);
  const rows = await db
    .updateTable('client_reports')
    .set({ status: 'pending', lease_until: queuedUntil })
    .where('id', 'in', stale)
    .where('status', 'in', ['pending', 'making'])
    .where('lease_until', '<=', now)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Takes a pending report for one attempt, under a lease; undefined when it is not pending (made, or taken by another attempt). */
export async function startMaking(db: Db, reportId: string, leaseUntil: Date): Promise<ClientReport | undefined> {
  return db
    .updateTable('client_reports')
    .set((eb) => ({ status: 'making', attempts: eb('attempts', '+', 1), lease_until: leaseUntil }))
    .where('id', '=', reportId)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/** Marks a made report held or sent, only while this attempt still holds it. */
export async function finishReport(db: Db, reportId: string, attempt: number, status: 'held' | 'sent', pdf: Uint8Array, now: Date): Promise<boolean> {
  const updated = await db
    .updateTable('client_reports')
    .set({ status, pdf, finished_at: now, lease_until: null, last_error: null })
    .where('id', '=', reportId)
    .where('status', '=', 'making')
    .where('attempts', '=', attempt)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** A failed attempt leaves the report to be queued again once `retryAt` has come. */
export async function recordReportFailure(db: Db, reportId: string, attempt: number, message: string, retryAt: Date): Promise<void> {
  await db
    .updateTable('client_reports')
    .set({ last_error: message.slice(0, 1000), lease_until: retryAt })
    .where('id', '=', reportId)
    .where('status', '=', 'making')
    .where('attempts', '=', attempt)
    .execute();
}

/** After the last attempt the report is given up; the error stays on the row for the operator. */
export async function giveUpReport(db: Db, reportId: string, attempt: number, message: string): Promise<void> {
  await db
    .updateTable('client_reports')
    .set({ status: 'failed', last_error: message.slice(0, 1000), lease_until: null })
    .where('id', '=', reportId)
    .where('status', '=', 'making')
    .where('attempts', '=', attempt)
    .execute();
}

export async function findReport(db: Db, reportId: string): Promise<ClientReport | undefined> {
  return db.selectFrom('client_reports').selectAll().where('id', '=', reportId).executeTakeFirst();
}

/** Clients with reports on, a batch at a time, and whether their workspace runs clients now; the caller decides which are due. */
export async function clientsWithReportsOn(db: Db, afterId: string | null, limit: number): Promise<Array<Client & { runs: boolean }>> {
  let query = db
    .selectFrom('clients as c')
    .innerJoin('workspaces as w', 'w.id', 'c.workspace_id')
    .selectAll('c')
    .select(['w.plan as workspace_plan', 'w.status as workspace_status'])
    .where('c.reports_enabled', '=', true);
  if (afterId) query = query.where('c.id', '>', afterId);
  const rows = await query.orderBy('c.id').limit(limit).execute();
  return rows.map(({ workspace_plan, workspace_status, ...client }) => ({ ...client, runs: runsClients(workspace_plan, workspace_status) }));
}

export async function reportExists(db: Db, clientId: string, month: string): Promise<boolean> {
  const row = await db.selectFrom('client_reports').select('id').where('client_id', '=', clientId).where('month', '=', month).executeTakeFirst();
  return row !== undefined;
}

/** What the client's archive lists: sent reports only, newest month first (held ones wait for the agency). */
export async function sentReports(db: Db, clientId: string): Promise<Array<Pick<ClientReport, 'id' | 'month' | 'finished_at'>>> {
  return db
    .selectFrom('client_reports')
    .select(['id', 'month', 'finished_at'])
    .where('client_id', '=', clientId)
    .where('status', '=', 'sent')
    .orderBy('month', 'desc')
    .execute();
}

export async function sentReportPdf(db: Db, clientId: string, reportId: string): Promise<{ month: string; pdf: Uint8Array } | undefined> {
  const row = await db
    .selectFrom('client_reports')
    .select(['month', 'pdf'])
    .where('client_id', '=', clientId)
    .where('id', '=', reportId)
    .where('status', '=', 'sent')
    .executeTakeFirst();
  return row?.pdf ? { month: row.month, pdf: row.pdf } : undefined;
}

/** Tickets opened for the agent in a period of UTC days (inclusive). */
export async function countTickets(db: Db, agentId: string, from: string, to: string): Promise<number> {
  const start = new Date(`${from}T00:00:00.000Z`);
  const end = new Date(Date.parse(`${to}T00:00:00.000Z`) + 86_400_000);
  const row = await db
    .selectFrom('tickets')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('agent_id', '=', agentId)
    .where('created_at', '>=', start)
    .where('created_at', '<', end)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function agentName(db: Db, agentId: string): Promise<string> {
  const row = await db.selectFrom('agents').select('name').where('id', '=', agentId).executeTakeFirst();
  return row?.name ?? 'Agent';
}

export async function workspaceOwnerEmail(db: Db, workspaceId: string): Promise<{ email: string | null; language: string } | undefined> {
  const row = await db.selectFrom('workspaces').select(['owner_email', 'language']).where('id', '=', workspaceId).executeTakeFirst();
  return row && { email: row.owner_email, language: row.language };
}
