/**
 * Agency clients (spec 2.12, 4.12): an agent the workspace runs for a client gets a
 * client record, a monthly report mailed to the client, and a keyless archive of those
 * reports behind a link of its own. docs/clients.md tells the rules.
 */
import type { z } from 'zod';
import type { Context } from '../../context.ts';
import { isLimitedToAgents, requireAgentReach, requireRole, seesFees, type Principal } from '../../domain/principal.ts';
import { errors, type ErrorDetail } from '../../domain/errors.ts';
import { fingerprint } from '../../platform/crypto.ts';
import { randomBase62 } from '../../platform/ids.ts';
import { requireAgent } from '../agents/access.ts';
import { LANGUAGES, type Language } from '../agents/schemas.ts';
import '../agents/store.ts';
import type { clientBody, clientReply } from './schemas.ts';
import * as store from './store.ts';

export type ClientInput = z.infer<typeof clientBody>;
export type ClientReply = z.infer<typeof clientReply>;

const LINK_TOKEN_LENGTH = 48;
export const LINK_TOKEN_PATTERN = /^[0-9A-Za-z]{48}$/;
/** Where the keyless archive lives, at the service's root (beside /visitor/v1). */
export const ARCHIVE_PREFIX = '/reports';

export const DEFAULT_REPORT_SETTINGS = { enabled: false, day: 1, transcripts: false, holdForReview: false, intro: '', signature: '' };

/**
 * The four client routes' gate (spec 4.12, 5): the plan first (402); a key tied to one
 * agent is refused with 403 forbidden on its own agent, while any other agent stays the
 * 404 it is to such a key everywhere (tied-key rule 1); then the agent (404).
 */
async function requireClientAgent(ctx: Context, auth: Principal, agentId: string) {
  if (!auth.plan.clients) throw errors.clientsNotInPlan();
  if (isLimitedToAgents(auth)) {
    requireAgentReach(auth, agentId);
    throw errors.forbidden(auth.kind === 'key' ? 'A key tied to one agent may not see or change clients.' : 'A member limited to some agents may not see or change clients.');
  }
  return requireAgent(ctx, auth, agentId);
}


export async function getClient(ctx: Context, auth: Principal, agentId: string): Promise<ClientReply> {
  const agent = await requireClientAgent(ctx, auth, agentId);
  return clientView(ctx, await store.findClient(ctx.db, agent.workspaceId, agent.id), seesFees(auth));
}

/**
 * Records a first client or changes the one there is (omitted fields stay). A first
 * client needs name and email, has reports off unless reportsEnabled is true, and
 * replies to its reports go to the workspace owner's address.
 */
export async function putClient(ctx: Context, auth: Principal, agentId: string, input: ClientInput): Promise<ClientReply> {
  // A client's settings carry its fees: changing them is for owners and admins (docs/people.md).
  requireRole(auth, 'admin');
  const agent = await requireClientAgent(ctx, auth, agentId);
  const now = ctx.clock.now();
  const existing = await store.findClient(ctx.db, agent.workspaceId, agent.id);
  if (!existing) {
    const missing: ErrorDetail[] = (['name', 'email'] as const).filter((field) => input[field] === undefined).map((field) => ({ field, message: 'a first client needs it' }));
    if (missing.length > 0) throw errors.invalid(`A first client needs ${missing.map((d) => d.field).join(' and ')}.`, missing);
    const owner = await store.workspaceOwnerEmail(ctx.db, agent.workspaceId);
    const token = randomBase62(LINK_TOKEN_LENGTH);
    const enabled = input.reportsEnabled === true;
    const created = await store
      .insertClient(ctx.db, {
        id: `cli_${randomBase62(20)}`,
        workspace_id: agent.workspaceId,
        agent_id: agent.id,
        name: input.name!.trim(),
        email: input.email!.trim(),
        language: input.language ?? (await agentLanguage(ctx, agent.id)),
        service_fee_eur: cents(input.serviceFeeEur),
        setup_fee_eur: cents(input.setupFeeEur),
        intro: input.intro ?? DEFAULT_REPORT_SETTINGS.intro,
        signature: input.signature ?? DEFAULT_REPORT_SETTINGS.signature,
        report_day: input.reportDay ?? DEFAULT_REPORT_SETTINGS.day,
        transcripts: input.transcripts ?? DEFAULT_REPORT_SETTINGS.transcripts,
        reports_enabled: enabled,
        reports_enabled_at: enabled ? now : null,
        hold_for_review: input.holdForReview ?? DEFAULT_REPORT_SETTINGS.holdForReview,
        reply_to: owner?.email ?? null,
        link_token: token,
        link_fingerprint: fingerprint(token),
        since: now,
        updated_at: now,
      })
      .catch(async (error: unknown) => {
        // Two first PUTs at once: the second finds the first's client and changes it instead.
        if (await store.findClient(ctx.db, agent.workspaceId, agent.id)) return undefined;
        throw error;
      });
    if (!created) return putClient(ctx, auth, agentId, input);
    return clientView(ctx, created, seesFees(auth));
  }
  const changes: Partial<store.ClientRow> = { updated_at: now };
  if (input.name !== undefined) changes.name = input.name.trim();
  if (input.email !== undefined) changes.email = input.email.trim();
  if (input.language !== undefined) changes.language = input.language;
  if (input.serviceFeeEur !== undefined) changes.service_fee_eur = cents(input.serviceFeeEur);
  if (input.setupFeeEur !== undefined) changes.setup_fee_eur = cents(input.setupFeeEur);
  if (input.intro !== undefined) changes.intro = input.intro;
  if (input.signature !== undefined) changes.signature = input.signature;
  if (input.reportDay !== undefined) changes.report_day = input.reportDay;
  if (input.transcripts !== undefined) changes.transcripts = input.transcripts;
  if (input.holdForReview !== undefined) changes.hold_for_review = input.holdForReview;
  if (input.reportsEnabled !== undefined) {
    changes.reports_enabled = input.reportsEnabled;
    // Switched on now: the next report falls due on the next report day, not one already past.
    if (input.reportsEnabled && !existing.reports_enabled) changes.reports_enabled_at = now;
  }
  return clientView(ctx, await store.updateClient(ctx.db, existing.id, changes), seesFees(auth));
}

/** Takes the client off: its archive link stops at once and no more reports are made; the agent and its conversations stay. */
export async function deleteClient(ctx: Context, auth: Principal, agentId: string): Promise<ClientReply> {
  // A client's settings carry its fees: changing them is for owners and admins (docs/people.md).
  requireRole(auth, 'admin');
  const agent = await requireClientAgent(ctx, auth, agentId);
  if (!(await store.deleteClient(ctx.db, agent.workspaceId, agent.id))) throw errors.notFound('client');
  return clientView(ctx, undefined, seesFees(auth));
}

/** A new archive link; the old one stops at once, also where it is written in reports already sent. */
export async function rotateReportLink(ctx: Context, auth: Principal, agentId: string): Promise<ClientReply> {
  // A client's settings carry its fees: changing them is for owners and admins (docs/people.md).
  requireRole(auth, 'admin');
  const agent = await requireClientAgent(ctx, auth, agentId);
  const existing = await store.findClient(ctx.db, agent.workspaceId, agent.id);
  if (!existing) throw errors.notFound('client');
  const token = randomBase62(LINK_TOKEN_LENGTH);
  const updated = await store.updateClient(ctx.db, existing.id, { link_token: token, link_fingerprint: fingerprint(token), updated_at: ctx.clock.now() });
  return clientView(ctx, updated, seesFees(auth));
}

export function archiveLink(ctx: Context, token: string): string {
  return `${ctx.config.publicUrl}${ARCHIVE_PREFIX}/${token}`;
}

function clientView(ctx: Context, row: store.Client | undefined, withFees: boolean): ClientReply {
  if (!row) return { client: null, report: { link: null, ...DEFAULT_REPORT_SETTINGS } };
  const client: ClientReply['client'] = { name: row.name, email: row.email, language: languageOr(row.language), since: row.since.toISOString() };
  if (withFees) {
    client!.serviceFeeEur = euros(row.service_fee_eur);
    client!.setupFeeEur = euros(row.setup_fee_eur);
  }
  return {
    client,
    report: {
      link: archiveLink(ctx, row.link_token),
      enabled: row.reports_enabled,
      day: row.report_day,
      transcripts: row.transcripts,
      holdForReview: row.hold_for_review,
      intro: row.intro,
      signature: row.signature,
    },
  };
}

function cents(value: number | null | undefined): number | null {
  return value === undefined || value === null ? null : Math.round(value * 100) / 100;
}

function euros(value: string | number | null): number | null {
  return value === null ? null : Number(value);
}

export function languageOr(value: string): Language {
  return (LANGUAGES as readonly string[]).includes(value) ? (value as Language) : 'en';
}

async function agentLanguage(ctx: Context, agentId: string): Promise<Language> {
  const row = await ctx.db.selectFrom('agents').select('language').where('id', '=', agentId).executeTakeFirst();
  return languageOr(row?.language ?? 'en');
}
