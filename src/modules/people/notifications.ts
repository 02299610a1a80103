/**
 * Who is e-mailed about an agent (spec 1.5; docs/people.md, "Notifications"):
 * per agent, the people mailed each new lead and each new ticket (and each
 * visitor's reply to a ticket), chosen among the workspace's people. Not chosen
 * (the default): the workspace's owner, as before people existed. The other
 * notices follow the same choice, among the people who may act on them.
 */
import { sql } from 'kysely';
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import type { Db } from '../../platform/db.ts';
import { languageOrEnglish, type Language } from '../agents/schemas.ts';
import '../agents/store.ts'; // declares the agents table read below
import { requireAgentReach, requireRole, type PersonCaller } from '../../domain/principal.ts';
import type { AgentNotifications } from './schemas.ts';
import { audit } from './service.ts';
import './store.ts'; // declares the people and memberships tables read below

export const NOTICE_KINDS = ['leads', 'tickets'] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

export interface AgentNotificationsRow {
  agent_id: string;
  workspace_id: string;
  /** Person ids; null: not chosen, the default (the owner). */
  leads: string[] | null;
  tickets: string[] | null;
  updated_at: Date;
}

declare module '../../platform/db.ts' {
  interface Tables {
    agent_notifications: AgentNotificationsRow;
  }
}

/** The pages of the dashboard a notice links to (the dashboard serves them). */
export const dashboardPages = {
  ticket: (ctx: Context, agentId: string, ticketId: string) => `${ctx.config.publicUrl}/app/agents/${agentId}/inbox/tickets/${ticketId}`,
  lead: (ctx: Context, agentId: string, leadId: string) => `${ctx.config.publicUrl}/app/agents/${agentId}/inbox/leads/${leadId}`,
  webhook: (ctx: Context, webhookId: string) => `${ctx.config.publicUrl}/app/webhooks/${webhookId}`,
  client: (ctx: Context, agentId: string) => `${ctx.config.publicUrl}/app/agents/${agentId}/client`,
};

interface Member {
  id: string;
  email: string;
  name: string;
  role: string;
  agent_ids: string[] | null;
}

async function membersOf(db: Db, workspaceId: string): Promise<Member[]> {
  return db
    .selectFrom('memberships as m')
    .innerJoin('people as p', 'p.id', 'm.person_id')
    .select(['p.id', 'p.email', 'p.name', 'm.role', 'm.agent_ids'])
    .where('m.workspace_id', '=', workspaceId)
    .orderBy('m.created_at')
    .orderBy('p.id')
    .execute();
}

const reaches = (member: Member, agentId: string) => member.agent_ids === null || member.agent_ids.includes(agentId);
const mayManage = (member: Member) => member.role === 'owner' || member.role === 'admin';

/**
 * The people chosen for a kind of notice of an agent who are still in the
 * workspace and reach the agent. Not chosen: the owner. Chosen, but every one of
 * them gone since: the owner too, so a notice never silently goes nowhere. An
 * empty choice mails no one.
 */
function chosenFor(members: Member[], row: AgentNotificationsRow | undefined, agentId: string, kind: NoticeKind): { people: Member[]; chosen: boolean } {
  const owner = members.filter((member) => member.role === 'owner');
  const ids = row?.[kind] ?? null;
  if (ids === null) return { people: owner, chosen: false };
  if (ids.length === 0) return { people: [], chosen: true };
  const people = members.filter((member) => ids.includes(member.id) && reaches(member, agentId));
  return { people: people.length > 0 ? people : owner, chosen: true };
}

export interface Recipients {
  emails: string[];
  /** The workspace's default language: the notices are written in it. */
  language: Language;
}

/**
 * Who gets a notice about agents of a workspace: the people chosen for the kinds
 * given, for each agent given (null: every agent of the workspace); with
 * `managersOnly`, only owners and admins among them (a notice about what only
 * they may handle), else the owner.
 */
export async function noticeRecipients(db: Db, workspaceId: string, agentIds: string[] | null, kinds: readonly NoticeKind[], options: { managersOnly?: boolean } = {}): Promise<Recipients> {
  const workspace = await db.selectFrom('workspaces').select('language').where('id', '=', workspaceId).executeTakeFirst();
  const language = languageOrEnglish(workspace?.language ?? 'en');
  const members = await membersOf(db, workspaceId);
  const agents = agentIds ?? (await db.selectFrom('agents').select('id').where('workspace_id', '=', workspaceId).execute()).map((agent) => agent.id);
  const rows = agents.length === 0 ? [] : await db.selectFrom('agent_notifications').selectAll().where('agent_id', 'in', agents).execute();
  const found = new Map<string, Member>();
  for (const agentId of agents) {
    const row = rows.find((r) => r.agent_id === agentId);
    for (const kind of kinds) for (const member of chosenFor(members, row, agentId, kind).people) found.set(member.id, member);
  }
  let people = [...found.values()];
  if (options.managersOnly) {
    people = people.filter(mayManage);
    if (people.length === 0) people = members.filter((member) => member.role === 'owner');
  }
  if (agents.length === 0) people = members.filter((member) => member.role === 'owner');
  return { emails: people.map((member) => member.email), language };
}

/** Records one notice per recipient in the caller's transaction; the ids for dispatch. */
export async function recordNotices(ctx: Context, db: Db, recipients: Recipients, mail: { subject: string; text: string; html?: string }): Promise<Array<string | null>> {
  const ids: Array<string | null> = [];
  for (const to of recipients.emails) ids.push(await ctx.mailer.record(db, { to, ...mail }));
  return ids;
}

// ---------------------------------------------------------------- the dashboard's routes

async function agentOf(ctx: Context, caller: PersonCaller, agentId: string): Promise<void> {
  requireAgentReach(caller, agentId);
  const agent = await ctx.db.selectFrom('agents').select('id').where('id', '=', agentId).where('workspace_id', '=', caller.workspaceId).executeTakeFirst();
  if (!agent) throw errors.notFound('agent');
}

/** Who is mailed about the agent now, per kind: `chosen` false while it is the default (the owner). Any role that reaches the agent may read it. */
export async function notificationsAsPerson(ctx: Context, caller: PersonCaller, agentId: string) {
  await agentOf(ctx, caller, agentId);
  const [members, row] = await Promise.all([
    membersOf(ctx.db, caller.workspaceId),
    ctx.db.selectFrom('agent_notifications').selectAll().where('agent_id', '=', agentId).executeTakeFirst(),
  ]);
  return notificationsView(members, row, agentId);
}

/**
 * The same for every agent the caller reaches, oldest agent first, in one read (GET
 * /app/api/notifications: the People page's table). Any role; a member limited to some agents gets theirs.
 */
export async function listNotificationsAsPerson(ctx: Context, caller: PersonCaller) {
  let agents = ctx.db.selectFrom('agents').select('id').where('workspace_id', '=', caller.workspaceId);
  if (caller.agentIds !== null) agents = caller.agentIds.length ? agents.where('id', 'in', caller.agentIds) : agents.where(sql<boolean>`false`);
  const [members, agentIds, rows] = await Promise.all([
    membersOf(ctx.db, caller.workspaceId),
    agents.orderBy('created_at').orderBy('id').execute(),
    ctx.db.selectFrom('agent_notifications').selectAll().where('workspace_id', '=', caller.workspaceId).execute(),
  ]);
  return agentIds.map(({ id }) => notificationsView(members, rows.find((row) => row.agent_id === id), id));
}

function notificationsView(members: Member[], row: AgentNotificationsRow | undefined, agentId: string): AgentNotifications {
  const view = (kind: NoticeKind) => {
    const { people, chosen } = chosenFor(members, row, agentId, kind);
    return { chosen, people: people.map((member) => ({ id: member.id, email: member.email, name: member.name })) };
  };
  return { agentId, leads: view('leads'), tickets: view('tickets') };
}

/**
 * Owners and admins choose the people mailed each new lead and each new ticket
 * of an agent: person ids of the workspace who reach the agent (a member limited
 * to other agents cannot be chosen); null goes back to the default; a kind left
 * out stays as it is.
 */
export async function setNotificationsAsPerson(ctx: Context, caller: PersonCaller, agentId: string, input: Partial<Record<NoticeKind, string[] | null>>, requestId: string) {
  requireRole(caller, 'admin');
  await agentOf(ctx, caller, agentId);
  const members = await membersOf(ctx.db, caller.workspaceId);
  const changes: Partial<Record<NoticeKind, string[] | null>> = {};
  for (const kind of NOTICE_KINDS) {
    const ids = input[kind];
    if (ids === undefined) continue;
    if (ids !== null) {
      for (const id of ids) {
        const member = members.find((m) => m.id === id);
        if (!member) throw errors.invalidField(kind, `No person ${id} in this workspace.`);
        if (!reaches(member, agentId)) throw errors.invalidField(kind, `${member.email} is limited to other agents and cannot be mailed about this one.`);
      }
    }
    changes[kind] = ids === null ? null : [...new Set(ids)];
  }
  const json = (ids: string[] | null | undefined) => (ids === null || ids === undefined ? null : sql<string[]>`cast(${JSON.stringify(ids)}::text as jsonb)`);
  const now = ctx.clock.now();
  await ctx.db
    .insertInto('agent_notifications')
    .values({ agent_id: agentId, workspace_id: caller.workspaceId, leads: json(changes.leads), tickets: json(changes.tickets), updated_at: now })
    .onConflict((oc) =>
      oc.column('agent_id').doUpdateSet({
        ...('leads' in changes && { leads: json(changes.leads) }),
        ...('tickets' in changes && { tickets: json(changes.tickets) }),
        updated_at: now,
      }),
    )
    .execute();
  await audit(ctx, caller, 'agent.notifications', agentId, requestId);
  return notificationsAsPerson(ctx, caller, agentId);
}
