/**
 * Webhooks (spec 2.13, 4.14): the resource. Deliveries are in delivery.ts and
 * jobs.ts; docs/webhooks.md tells receivers what arrives.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Context } from '../../context.ts';
import { requireRole, type Principal } from '../../domain/principal.ts';
import { errors } from '../../domain/errors.ts';
import { newId, randomBase62 } from '../../platform/ids.ts';
import { namesPrivateHost } from '../../platform/safe-address.ts';
import { SafeFetchError } from '../../platform/safe-fetch-error.ts';
import { requireAgent } from '../agents/access.ts';
import type { CreatedWebhookView, CreateWebhookInput, WebhookView } from './schemas.ts';
import * as store from './store.ts';

export const MAX_WEBHOOKS = 10;

/**
 * Webhooks are for keys (by their scope) and for owners and admins, never a
 * member (403, docs/people.md); spec 4.14: every webhook route needs the plan
 * that includes integrations.
 */
export function requireIntegrations(auth: Principal): void {
  requireRole(auth, 'admin');
  if (!auth.plan.integrations) throw errors.integrationsNotInPlan();
}

/** The one agent a tied key sees webhooks of; null for every other key and for an owner or admin (never limited). */
function onlyAgentOf(auth: Principal): string | null {
  return auth.kind === 'key' ? auth.agentId : null;
}

export async function listWebhooks(ctx: Context, auth: Principal): Promise<WebhookView[]> {
  requireIntegrations(auth);
  const rows = await store.listWebhooks(ctx.db, auth.workspaceId, onlyAgentOf(auth));
  return rows.map((row) => webhookView(row, auth));
}

export async function getWebhook(ctx: Context, auth: Principal, id: string): Promise<WebhookView> {
  requireIntegrations(auth);
  const row = await store.findWebhook(ctx.db, auth.workspaceId, onlyAgentOf(auth), id);
  if (!row) throw errors.notFound('webhook');
  return webhookView(row, auth);
}

/**
 * Adds a webhook, or replaces the workspace's webhook for the same address when it
 * is for the same agents (automation platforms subscribe again); the reply is the
 * only place the signing secret is shown.
 */
export async function createWebhook(ctx: Context, auth: Principal, input: CreateWebhookInput): Promise<CreatedWebhookView> {
  requireIntegrations(auth);
  const agentId = onlyAgentOf(auth) ?? input.agentId ?? null;
  if (agentId !== null) await requireAgent(ctx, auth, input.agentId ?? agentId);
  const url = await checkedUrl(ctx, input.url);
  const row: store.WebhookRow = {
    id: newId('wh'),
    workspace_id: auth.workspaceId,
    agent_id: agentId,
    url,
    events: input.events,
    secret: `whsec_${randomBase62(32)}`,
    active: true,
    disabled_at: null,
    created_at: ctx.clock.now(),
  };
  const created = await ctx.db.transaction().execute(async (trx) => {
    await store.lockWorkspace(trx, auth.workspaceId);
    const existing = await store.workspaceWebhooks(trx, auth.workspaceId);
    const sameAddress = existing.find((hook) => hook.url === url);
    if (sameAddress && sameAddress.agent_id !== agentId) {
      throw errors.invalidField('url', 'The workspace already has a webhook for this address, for other agents.');
    }
    if (sameAddress) await store.deleteWebhookById(trx, sameAddress.id);
    else if (existing.length >= MAX_WEBHOOKS) throw errors.invalid(`A workspace has at most ${MAX_WEBHOOKS} webhooks.`);
    return store.insertWebhook(trx, row);
  });
  return { ...webhookView(created, auth), secret: created.secret };
}

/** Deletes the webhook and every delivery still waiting: nothing more is sent to it. */
export async function deleteWebhook(ctx: Context, auth: Principal, id: string): Promise<{ id: string; deleted: true }> {
  requireIntegrations(auth);
  if (!(await store.deleteWebhook(ctx.db, auth.workspaceId, onlyAgentOf(auth), id))) throw errors.notFound('webhook');
  return { id, deleted: true };
}

function webhookView(row: store.Webhook, auth: Principal): WebhookView {
  return {
    id: row.id,
    url: auth.kind === 'key' && auth.scope === 'read' ? cutAfterHost(row.url) : row.url,
    events: row.events,
    agentId: row.agent_id,
    active: row.active,
    disabledAt: row.disabled_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

/** A path or query can carry a token: a read key sees the scheme and host only. */
function cutAfterHost(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

/**
 * Spec 4.14's address rules. PARLEY_ALLOW_PRIVATE_URLS=1 (local testing) also lets
 * in plain http and a port, as local receivers need, for an address that names a
 * loopback or private host (or a name resolving only there); a public name keeps
 * the rules with the flag on. The name is looked up again
 * before every delivery (delivery.ts), so passing here is not the last word.
 */
async function checkedUrl(ctx: Context, raw: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw errors.invalidField('url', 'Not an address.');
  }
  const relaxed = (url.protocol === 'http:' || url.port !== '') && ctx.config.allowPrivateUrls && (await namesPrivateHost(url));
  if (url.protocol !== 'https:' && !(relaxed && url.protocol === 'http:')) throw errors.invalidField('url', 'The address must start with https://.');
  if (url.port !== '' && !relaxed) throw errors.invalidField('url', 'The address may not name a port.');
  if (url.username !== '' || url.password !== '') throw errors.invalidField('url', 'The address may not hold a user name or password.');
  if (url.href.length > 2000) throw errors.invalidField('url', 'The address is longer than 2,000 characters.');
  if (isMappedIPv6(url.hostname)) throw errors.unsafeUrl();
  try {
    await ctx.safeFetch.check(url.href);
  } catch (error) {
    if (!(error instanceof SafeFetchError)) throw error;
    if (error.kind === 'unsafe_url') throw errors.unsafeUrl();
    if (error.kind === 'invalid_url') throw errors.invalidField('url', error.message);
    // A name that does not resolve right now: its deliveries fail and are retried, then it is switched off.
  }
  return url.href;
}

/** An IPv4 address written as IPv6 (::ffff:a.b.c.d) is refused whatever it maps to: no receiver needs one. */
function isMappedIPv6(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(bare) === 6 && ipaddr.parse(bare).kind() === 'ipv6' && (ipaddr.parse(bare) as ipaddr.IPv6).isIPv4MappedAddress();
}
