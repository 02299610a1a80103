/**
 * Leads (spec 2.10, 4.10): contact details a visitor leaves in the chat's lead
 * form, checked against the agent's leadCapture settings, and read and erased by
 * the team over the API. docs/visitors.md ("Leads") tells the rules.
 */
import { z } from 'zod';
import { createRequire } from 'node:module';
import type { Context } from '../../context.ts';
import type { Principal } from '../../domain/principal.ts';
import { errors } from '../../domain/errors.ts';
import { withoutBidiControls } from '../../domain/text.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, pageOf } from '../../domain/paging.ts';
import { newId } from '../../platform/ids.ts';
import { recordDomainEvent } from '../../platform/domain-events.ts';
import { requireAgent } from '../agents/access.ts';
import { LANGUAGES, type Agent, type Language } from '../agents/schemas.ts';
import { pageAddress } from '../chat/retrieval.ts';
import { pageTitles } from '../chat/store.ts';
import { requireVisitorConversation, type Visitor } from '../visitors/access.ts';
import type { CreateLeadInput, LeadView } from './schemas.ts';
import * as store from './store.ts';
import { leadNoticeMail } from './mails.ts';
import { dashboardPages, noticeRecipients, recordNotices } from '../people/notifications.ts';
import { FORM_TEXTS } from './texts.ts';

/** How long a lead is kept unless deleted sooner (docs/visitors.md). */
export const LEAD_RETENTION_MONTHS = 24;

/** The mailbox providers' domains (a list of some 130 kB), read by the first lead with an e-mail address. */
let mailboxProviders: ReadonlySet<string> | undefined;
const MAILBOX_PROVIDERS = (): ReadonlySet<string> =>
  (mailboxProviders ??= new Set(createRequire(import.meta.url)('email-providers/all.json') as string[]));
const PHONE = /^\+?[0-9 ()./-]+$/;
const MIN_PHONE_DIGITS = 6;
const CONTACT_FIELDS = ['email', 'phone'] as const;

type FieldName = Agent['leadCapture']['fields'][number]['name'];
type Details = Record<FieldName, string | null>;

/** A lead left by a visitor (POST /visitor/v1/agents/{agentId}/leads). */
export async function createLead(ctx: Context, visitor: Visitor, input: CreateLeadInput, visitorToken: string | undefined): Promise<{ id: string }> {
  const sent = checkedDetails(input);
  const conversation = input.conversationId ? await requireVisitorConversation(ctx, visitor, input.conversationId, visitorToken) : null;
  const form = visitor.settings.leadCapture;
  if (!form.enabled) throw errors.invalidField('leadCapture.enabled', "This agent's lead form is off: it takes no leads.");
  const details = askedDetails(form, sent);
  if (input.marketing && !form.marketing.enabled) throw errors.invalidField('marketing', 'The form has no news-and-offers box to tick.');

  const language = leadLanguage(visitor.settings, input.language);
  const page = await pageWithTitle(ctx, visitor.agent.id, input.page?.url);
  const now = ctx.clock.now();
  const lead: store.LeadRow = {
    id: newId('lead'),
    workspace_id: visitor.workspaceId,
    agent_id: visitor.agent.id,
    conversation_id: conversation?.id ?? null,
    ...details,
    company_domain: companyDomain(details.email),
    marketing: input.marketing ?? false,
    moment: input.moment,
    page_url: page?.url ?? null,
    page_title: page?.title ?? null,
    language,
    shown: shownBy(form, language),
    created_at: now,
    expires_at: retentionEnd(now),
  };
  await saveWithNotice(ctx, visitor.settings.name, lead);
  return { id: lead.id };
}

/** What the visitor typed, trimmed (an empty text is left empty), the e-mail and phone checked for their form. */
function checkedDetails(input: CreateLeadInput): Details {
  const details: Details = { name: filled(input.name, withoutBidiControls), email: filled(input.email), phone: filled(input.phone), company: filled(input.company, withoutBidiControls) };
  if (details.email !== null && !z.email().safeParse(details.email).success) throw errors.invalidField('email', 'Not an e-mail address.');
  if (details.phone !== null && !isPhoneNumber(details.phone)) {
    throw errors.invalidField('phone', `Not a phone number: digits (at least ${MIN_PHONE_DIGITS}) with spaces, +, -, ., / or brackets.`);
  }
  return details;
}

function filled(value: string | null | undefined, clean: (text: string) => string = (text) => text): string | null {
  const trimmed = clean(value ?? '').trim();
  return trimmed === '' ? null : trimmed;
}

function isPhoneNumber(value: string): boolean {
  return PHONE.test(value) && value.lastIndexOf('+') <= 0 && value.replace(/\D/g, '').length >= MIN_PHONE_DIGITS;
}

/**
 * The details the form asks for; a field it does not ask is not kept (spec 2.10:
 * null when not asked). Every required field must be filled, and a lead needs a way
 * to reach the visitor: the e-mail or phone the form asks for.
 */
function askedDetails(form: Agent['leadCapture'], sent: Details): Details {
  const asked = new Map(form.fields.map((field) => [field.name, field.required]));
  const details: Details = { name: null, email: null, phone: null, company: null };
  for (const [name, required] of asked) {
    if (required && sent[name] === null) throw errors.invalidField(name, 'required');
    details[name] = sent[name];
  }
  const contactFields = CONTACT_FIELDS.filter((name) => asked.has(name));
  if (contactFields.length > 0 && contactFields.every((name) => details[name] === null)) {
    throw errors.invalidField(contactFields[0], contactFields.length > 1 ? 'An e-mail address or a phone number is needed.' : 'required');
  }
  return details;
}

/** The widget's language when the agent speaks it (the widget speaks only those); otherwise the agent's own. */
function leadLanguage(settings: Agent, sent: string | undefined): Language {
  const primary = sent?.trim().toLowerCase().split(/[-_]/)[0];
  const language = LANGUAGES.find((l) => l === primary);
  return language && settings.languages.includes(language) ? language : settings.language;
}

async function pageWithTitle(ctx: Context, agentId: string, raw: string | undefined): Promise<{ url: string; title: string | null } | null> {
  const url = pageAddress(raw);
  if (!url) return null;
  const titles = await pageTitles(ctx.db, agentId, [url]);
  return { url, title: titles.get(url) ?? null };
}

/** The form's texts as the widget showed them: the agent's own, else the standard ones in the lead's language. */
function shownBy(form: Agent['leadCapture'], language: Language): store.Shown {
  const standard = FORM_TEXTS[language];
  return {
    intro: form.intro || standard.intro,
    consent: standard.consent,
    privacyUrl: form.privacyUrl,
    marketing: form.marketing.enabled ? form.marketing.label || standard.marketingLabel : null,
  };
}

/** The address's domain, unless it (or a domain it is under) belongs to a mailbox provider. */
export function companyDomain(email: string | null): string | null {
  const domain = email?.slice(email.lastIndexOf('@') + 1).toLowerCase();
  if (!domain) return null;
  const labels = domain.split('.');
  for (let i = 0; i < labels.length - 1; i++) if (MAILBOX_PROVIDERS().has(labels.slice(i).join('.'))) return null;
  return domain;
}

function retentionEnd(from: Date): Date {
  const end = new Date(from);
  end.setUTCMonth(end.getUTCMonth() + LEAD_RETENTION_MONTHS);
  return end;
}

/**
 * The lead, its lead.created event (for webhooks) and the notices to the people
 * chosen for the agent's leads (the owner unless chosen; docs/people.md,
 * "Notifications") are written in one transaction, so the mails and the event exist exactly when the lead does; the mail job sends them afterwards, so a mail server never
 * holds up the visitor.
 */
async function saveWithNotice(ctx: Context, agentName: string, lead: store.LeadRow): Promise<void> {
  const recipients = await noticeRecipients(ctx.db, lead.workspace_id, [lead.agent_id], ['leads']);
  const mailIds = await ctx.db.transaction().execute(async (trx) => {
    await store.insertLead(trx, lead);
    await recordDomainEvent(trx, { workspaceId: lead.workspace_id, agentId: lead.agent_id, type: 'lead.created', data: leadView(lead), at: lead.created_at });
    if (recipients.emails.length === 0) return [];
    const notice = leadNoticeMail(recipients.language, {
      agentName,
      name: lead.name,
      email: lead.email,
      phone: lead.phone,
      company: lead.company,
      marketing: lead.marketing,
      pageUrl: lead.page_url,
      language: lead.language,
      conversationId: lead.conversation_id,
      leadUrl: dashboardPages.lead(ctx, lead.agent_id, lead.id),
    });
    return recordNotices(ctx, trx, recipients, notice);
  });
  await ctx.mailer.dispatch(mailIds);
}

// ---------------------------------------------------------------- the team's API

export async function listLeads(ctx: Context, auth: Principal, agentId: string, input: { limit?: number; cursor?: string }) {
  const agent = await requireAgent(ctx, auth, agentId);
  const limit = input.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await store.listLeads(ctx.db, agent.id, ctx.clock.now(), limit, decodeCursor(input.cursor));
  const { items, nextCursor } = pageOf(rows, limit, (row) => ({ at: row.created_at.toISOString(), id: row.id }));
  return { items: items.map(leadView), nextCursor };
}

export async function getLead(ctx: Context, auth: Principal, agentId: string, leadId: string): Promise<LeadView> {
  const agent = await requireAgent(ctx, auth, agentId);
  const lead = await store.findLead(ctx.db, agent.id, leadId, ctx.clock.now());
  if (!lead) throw errors.notFound('lead');
  return leadView(lead);
}

/** Erases the lead; its conversation stays. */
export async function deleteLead(ctx: Context, auth: Principal, agentId: string, leadId: string): Promise<{ id: string; deleted: true }> {
  const agent = await requireAgent(ctx, auth, agentId);
  if (!(await store.deleteLead(ctx.db, agent.id, leadId, ctx.clock.now()))) throw errors.notFound('lead');
  return { id: leadId, deleted: true };
}

export function leadView(row: store.Lead): LeadView {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    company: row.company,
    companyDomain: row.company_domain,
    marketing: row.marketing,
    moment: row.moment,
    page: row.page_url ? { url: row.page_url, title: row.page_title } : null,
    language: row.language,
    shown: row.shown,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
  };
}
