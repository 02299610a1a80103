import { sql, type Selectable } from 'kysely';
import type { Db } from '../../platform/db.ts';
import type { Position } from '../../domain/paging.ts';

export const MOMENTS = ['before', 'questions', 'weak_answer', 'button'] as const;
export type Moment = (typeof MOMENTS)[number];

/** What the form showed when the lead was left. */
export interface Shown {
  intro: string;
  consent: string;
  privacyUrl: string | null;
  /** The marketing box's label; null when the form had no box. */
  marketing: string | null;
}

export interface LeadRow {
  id: string;
  workspace_id: string;
  agent_id: string;
  conversation_id: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  company: string | null;
  company_domain: string | null;
  marketing: boolean;
  moment: Moment;
  page_url: string | null;
  page_title: string | null;
  language: string;
  shown: Shown;
  created_at: Date;
  expires_at: Date;
}

declare module '../../platform/db.ts' {
  interface Tables {
    leads: LeadRow;
  }
}

export type Lead = Selectable<LeadRow>;

export async function insertLead(db: Db, lead: LeadRow): Promise<void> {
  // jsonb goes in as text cast on the server: the two drivers encode an inferred jsonb parameter differently.
  await db
    .insertInto('leads')
    .values({ ...lead, shown: sql<Shown>`cast(${JSON.stringify(lead.shown)}::text as jsonb)` })
    .execute();
}

/** A lead of the agent that has not expired (the expiry job may not have run yet). */
export async function findLead(db: Db, agentId: string, leadId: string, now: Date): Promise<Lead | undefined> {
  return db.selectFrom('leads').selectAll().where('id', '=', leadId).where('agent_id', '=', agentId).where('expires_at', '>', now).executeTakeFirst();
}

/** Newest first, limit + 1 rows for paging. */
export async function listLeads(db: Db, agentId: string, now: Date, limit: number, after?: Position): Promise<Lead[]> {
  let query = db.selectFrom('leads').selectAll().where('agent_id', '=', agentId).where('expires_at', '>', now);
  if (after) {
    const at = new Date(after.at);
    query = query.where((eb) => eb.or([eb('created_at', '<', at), eb.and([eb('created_at', '=', at), eb('id', '<', after.id)])]));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
}

export async function deleteLead(db: Db, agentId: string, leadId: string, now: Date): Promise<boolean> {
  const deleted = await db.deleteFrom('leads').where('id', '=', leadId).where('agent_id', '=', agentId).where('expires_at', '>', now).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

export async function deleteExpiredLeads(db: Db, now: Date): Promise<number> {
  const deleted = await db.deleteFrom('leads').where('expires_at', '<=', now).executeTakeFirst();
  return Number(deleted.numDeletedRows);
}

