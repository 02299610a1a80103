/**
 * The agent resource's verbs (spec 2.5, 3.5, 4.5). They know nothing of HTTP:
 * REST, MCP and jobs call them with a Context and the caller's Principal.
 */
import type { Context } from '../../context.ts';
import { isLimitedToAgents, type Principal } from '../../domain/principal.ts';
import { errors } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { newId } from '../../platform/ids.ts';
import { versionNames } from '../../platform/versions.ts';
import { HIGH_RISK_USE_CASES } from '../workspace/setup-guide.ts';
import { PRESETS } from '../workspace/presets.ts';
import type { Plan } from '../../domain/plans.ts';
import { agentsChanged, requireAgent, type AgentRef } from './access.ts';
import { normaliseAllowedOrigins } from './origins.ts';
import { LANGUAGES, type ActionPatch, type Agent, type CreateAgentInput, type Language, type PatchAgentInput } from './schemas.ts';
import { deepMerge, defaultSettings, orderLanguages, pruneTranslations, withDefaults, type AgentSettings } from './settings.ts';
import * as store from './store.ts';
import { withMailbox, type MailboxSettings } from './mailbox-settings.ts';

export type { AgentSettings } from './settings.ts';

export function presentAgent(ctx: Context, row: store.AgentRecord): Agent {
  const settings = withDefaults(row.settings, defaultSettings({ name: '', useCase: null, language: 'en', model: ctx.models.defaultModel }));
  return {
    id: row.id,
    ...settings,
    status: row.status,
    lastTrainedAt: iso(row.last_trained_at),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const keptPresentations = new WeakMap<store.AgentRecord, { ctx: Context; agent: Agent }>();

/**
 * presentAgent for a row a per-process cache keeps (read once, never changed): made once per
 * row and context, as every answer presents its agent. A row read again is a new object, so a
 * change to the agent is presented anew. Frozen: callers share it.
 */
export function presentKeptAgent(ctx: Context, row: store.AgentRecord): Agent {
  const kept = keptPresentations.get(row);
  if (kept?.ctx === ctx) return kept.agent;
  const agent = Object.freeze(presentAgent(ctx, row));
  keptPresentations.set(row, { ctx, agent });
  return agent;
}

/** For other areas (widget, chat, inbox): an agent's settings with every default, after requireAgent. */
export async function loadAgent(ctx: Context, agent: AgentRef): Promise<Agent> {
  const row = await store.getAgentRow(ctx.db, agent.workspaceId, agent.id);
  if (!row) throw errors.notFound('agent');
  return presentAgent(ctx, row);
}

// ---------------------------------------------------------------- create

export type CreatedAgent = Agent & { crawl?: { id: string; status: string }; crawlError?: { code: string; message: string } };

/**
 * Makes the agent. A website to crawl at creation is the knowledge area's
 * (knowledge/crawl/agent-creation.ts, createAgentWithWebsite), which calls this.
 */
export async function createAgent(ctx: Context, auth: Principal, input: Omit<CreateAgentInput, 'website'>): Promise<Agent> {
  // A tied key (or a member limited to some agents) sees only its own agents: one it made could never be reached with it.
  if (isLimitedToAgents(auth)) throw errors.forbidden(auth.kind === 'key' ? 'A key tied to one agent cannot create agents.' : 'A member limited to some agents cannot create agents.');
  if (isHighRisk(input.useCase) && !auth.plan.highRiskUseCases) throw errors.highRiskUseCase();
  const language = input.language ?? (await defaultLanguage(ctx, auth.workspaceId));
  const settings: AgentSettings = {
    ...defaultSettings({ name: input.name, useCase: input.useCase, language, model: ctx.models.defaultModel }),
    ...presetTuning(input.useCase),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.instructions !== undefined && { instructions: input.instructions }),
    ...(input.welcomeMessage !== undefined && { welcomeMessage: input.welcomeMessage }),
  };
  const now = ctx.clock.now();
  const row = await store.insertAgentWithinLimit(
    ctx.db,
    { id: newId('ag'), workspace_id: auth.workspaceId, status: 'active', settings, last_trained_at: null, created_at: now, updated_at: now },
    auth.plan.agents,
  );
  if (!row) throw errors.agentLimitReached();
  await Promise.all([ctx.versions.bump(versionNames.workspace(auth.workspaceId)), agentsChanged(ctx, auth.workspaceId)]); // the agent count of GET /workspace
  return presentAgent(ctx, row);
}

/**
 * The temperature and retrieval the setup guide recommends for the use case (none for the high-risk ones).
 * Its instructions and welcome message stay out: their [bracketed] parts are for the business to fill in.
 */
function presetTuning(useCase: string): Pick<AgentSettings, 'temperature' | 'retrieval'> | undefined {
  const preset = PRESETS.find((p) => p.useCase === useCase);
  return preset && { temperature: preset.temperature, retrieval: { ...preset.retrieval } };
}

function isHighRisk(useCase: string): boolean {
  return (HIGH_RISK_USE_CASES as readonly string[]).includes(useCase);
}

async function defaultLanguage(ctx: Context, workspaceId: string): Promise<Language> {
  const language = await store.workspaceLanguage(ctx.db, workspaceId);
  return (LANGUAGES as readonly string[]).includes(language) ? (language as Language) : 'en';
}

// ---------------------------------------------------------------- read, delete

export async function listAgents(ctx: Context, auth: Principal): Promise<Agent[]> {
  const rows = await store.listAgentRows(ctx.db, auth.workspaceId, auth.agentIds);
  return rows.map((row) => presentAgent(ctx, row));
}

export async function getAgent(ctx: Context, auth: Principal, agentId: string): Promise<Agent> {
  return loadAgent(ctx, await requireAgent(ctx, auth, agentId));
}

/** Irreversible: the agent, everything that references it, and the keys tied to it (spec 4.2). */
export async function deleteAgent(ctx: Context, auth: Principal, agentId: string): Promise<{ id: string; deleted: true }> {
  const agent = await requireAgent(ctx, auth, agentId);
  const result = await store.deleteAgentRow(ctx.db, agent.workspaceId, agent.id);
  if (!result.deleted) throw errors.notFound('agent');
  await Promise.all([ctx.versions.bump(versionNames.workspace(agent.workspaceId)), agentsChanged(ctx, agent.workspaceId)]);
  // Authentication caches keys until the auth version moves: a deleted agent's key must fail on its next request.
  if (result.keysDeleted > 0) await ctx.versions.bump(versionNames.auth);
  return { id: agent.id, deleted: true };
}

export async function embedSnippets(ctx: Context, auth: Principal, agentId: string) {
  const agent = await loadAgent(ctx, await requireAgent(ctx, auth, agentId));
  const base = ctx.config.publicUrl;
  return {
    script: `<script src="${base}/widget.js" data-agent="${agent.id}" defer></script>`,
    iframe: `<iframe src="${base}/chat/${agent.id}" title="${escapeAttribute(agent.name)}" style="border:0;width:100%;max-width:420px;height:640px" allow="clipboard-write"></iframe>`,
    allowedOrigins: agent.allowedOrigins,
  };
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

// ---------------------------------------------------------------- change

/**
 * Saves the agent's IMAP mailbox (its sealed password, its row) once the patch is checked:
 * the e-mail channel's part of a PATCH, given by its orchestrating verb
 * (email-channel/agent-update.ts), so this area never imports the e-mail channel.
 */
export type MailboxSaver = (agentId: string, before: MailboxSettings | undefined, after: MailboxSettings | undefined, password: string | undefined) => Promise<void>;

export async function updateAgent(ctx: Context, auth: Principal, agentId: string, patch: PatchAgentInput, saveMailbox?: MailboxSaver): Promise<Agent> {
  const ref = await requireAgent(ctx, auth, agentId, { active: true });
  const current = await loadAgent(ctx, ref);
  const next = applyPatch(ctx, auth.plan, settingsOf(current), patch);
  // The IMAP password is kept sealed beside the agent, never in its settings (docs/email.md, "IMAP").
  if (patch.emailChannel?.imap !== undefined) {
    if (!saveMailbox) throw new Error('a PATCH with emailChannel.imap goes through updateAgentWithMailbox (email-channel/agent-update.ts)');
    await saveMailbox(ref.id, current.emailChannel.imap, next.emailChannel.imap, patch.emailChannel.imap?.password);
  }
  const row = await store.updateAgentSettings(ctx.db, ref.workspaceId, ref.id, next, ctx.clock.now());
  if (!row) throw errors.notFound('agent');
  await agentsChanged(ctx, ref.workspaceId);
  return presentAgent(ctx, row);
}

function settingsOf(agent: Agent): AgentSettings {
  const { id: _id, status: _status, lastTrainedAt: _trained, createdAt: _created, updatedAt: _updated, ...settings } = agent;
  return settings;
}

/** Spec 4.5: the eight rules, checked on the merged result where the rule is about the result. */
export function applyPatch(ctx: Context, plan: Plan, current: AgentSettings, patch: PatchAgentInput): AgentSettings {
  const { languages, allowedOrigins, actions, ...rest } = patch;
  checkPlanFeatures(ctx, plan, patch);
  const next = deepMerge(current, rest);
  next.branding.translations = pruneTranslations(next.branding.translations);
  if (patch.language !== undefined || languages !== undefined) next.languages = orderLanguages(next.language, languages ?? current.languages);
  if (allowedOrigins !== undefined) next.allowedOrigins = normaliseAllowedOrigins(allowedOrigins);
  if (patch.leadCapture?.fields) next.leadCapture.fields = patch.leadCapture.fields.map((f) => ({ name: f.name, required: f.required ?? false }));
  if (actions !== undefined) next.actions = mergeActions(current.actions, actions);
  if (patch.calendlyUrl) requireHttps(patch.calendlyUrl, 'calendlyUrl');
  checkLeadCapture(next.leadCapture);
  checkTickets(next.tickets);
  if (patch.emailChannel?.imap !== undefined) next.emailChannel = withMailbox(next.emailChannel, current.emailChannel.imap, patch.emailChannel.imap);
  if (next.emailChannel.enabled && !next.emailChannel.address) {
    throw errors.invalidField('emailChannel.address', 'The e-mail channel needs the address whose mail the agent answers.');
  }
  return next;
}

/** Limits of the plan apply to what is being switched on now; what an earlier plan allowed stays stored. */
function checkPlanFeatures(ctx: Context, plan: Plan, patch: PatchAgentInput): void {
  if (patch.model !== undefined) {
    const model = ctx.models.find(patch.model);
    if (!model) throw errors.invalidField('model', `There is no model "${patch.model}"; GET /models lists them.`);
    if (!ctx.models.allowed(model, plan)) throw errors.modelNotAllowed(patch.model);
  }
  if ((patch.emailChannel?.enabled === true || patch.emailChannel?.imap) && !plan.integrations) throw errors.integrationsNotInPlan();
  if (patch.attachmentsEnabled === true && !plan.visitorFiles) {
    throw errors.invalidField('attachmentsEnabled', 'The plan does not let visitors send files (Studio and up).');
  }
  if (patch.branding?.removeBranding === true && !plan.brandingRemoval) {
    throw errors.invalidField('branding.removeBranding', 'The plan does not include removing the Parley branding (Agency and up).');
  }
}

function checkLeadCapture(leadCapture: AgentSettings['leadCapture']): void {
  const names = leadCapture.fields.map((f) => f.name);
  if (new Set(names).size !== names.length) throw errors.invalidField('leadCapture.fields', 'Each field may appear once.');
  if (leadCapture.privacyUrl !== null) requireHttps(leadCapture.privacyUrl, 'leadCapture.privacyUrl');
  if (!leadCapture.enabled) return;
  if (leadCapture.privacyUrl === null) throw errors.invalidField('leadCapture.privacyUrl', 'Lead capture needs a privacyUrl starting with https://.');
  if (!names.includes('email') && !names.includes('phone')) {
    throw errors.invalidField('leadCapture.fields', 'Lead capture needs an email or phone field among its fields.');
  }
}

function checkTickets(tickets: AgentSettings['tickets']): void {
  if (tickets.privacyUrl !== null) requireHttps(tickets.privacyUrl, 'tickets.privacyUrl');
  if (tickets.enabled && tickets.privacyUrl === null) throw errors.invalidField('tickets.privacyUrl', 'Tickets need a privacyUrl starting with https://.');
}

function requireHttps(value: string, field: string): void {
  if (!value.startsWith('https://') || !URL.canParse(value)) throw errors.invalidField(field, `${field} must be an address starting with https://.`);
}

/**
 * Rule 8: the list is replaced. An item with an id keeps that action and
 * changes only the members sent; an item without one is a new action.
 */
function mergeActions(current: Agent['actions'], sent: ActionPatch[]): Agent['actions'] {
  const seen = new Set<string>();
  return sent.map((item, index) => {
    const field = `actions.${index}`;
    let action: Agent['actions'][number];
    if (item.id !== undefined) {
      const kept = current.find((a) => a.id === item.id);
      if (!kept || seen.has(item.id)) throw errors.invalidField(`${field}.id`, `The agent has no action "${item.id}" (send new actions without an id).`);
      seen.add(item.id);
      action = { ...kept, ...definedMembers(item), id: kept.id };
      if (item.url !== undefined && item.kind === undefined) action.kind = kindOfUrl(item.url) ?? action.kind;
    } else {
      if (item.name === undefined || item.url === undefined) throw errors.invalidField(field, 'A new action needs a name and a url.');
      action = {
        id: newId('act'),
        kind: item.kind ?? kindOfUrl(item.url) ?? 'link',
        enabled: item.enabled ?? true,
        name: item.name,
        whenToUse: item.whenToUse ?? '',
        label: item.label ?? item.name.slice(0, 40),
        url: item.url,
      };
    }
    if (kindOfUrl(action.url) === undefined) throw errors.invalidField(`${field}.url`, 'An action url starts with https://, mailto: or tel:.');
    return action;
  });
}

function kindOfUrl(url: string): Agent['actions'][number]['kind'] | undefined {
  if (url.startsWith('https://') && URL.canParse(url)) return 'link';
  if (url.startsWith('mailto:') && url.length > 'mailto:'.length) return 'email';
  if (url.startsWith('tel:') && url.length > 'tel:'.length) return 'phone';
  return undefined;
}

function definedMembers<T extends object>(item: T): Partial<T> {
  return Object.fromEntries(Object.entries(item).filter(([, value]) => value !== undefined)) as Partial<T>;
}

// ---------------------------------------------------------------- plan changes

/**
 * After a move to a smaller plan the oldest agents stay active and the newest
 * beyond plan.agents are paused; a move back makes them active again (spec 3.5).
 */
export async function applyPlanToAgents(ctx: Context, workspaceId: string, plan: Plan): Promise<number> {
  const changed = await store.applyAgentLimit(ctx.db, workspaceId, plan.agents, ctx.clock.now());
  if (changed > 0) await agentsChanged(ctx, workspaceId);
  return changed;
}
