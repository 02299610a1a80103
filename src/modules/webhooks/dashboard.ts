/** The dashboard-only webhook verbs (spec 1.5), for owners and admins (docs/people.md). */
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { audit } from '../people/service.ts';
import { requireRole, type PersonCaller } from '../../domain/principal.ts';

/** Deliveries shown, newest first. */
const RECENT_DELIVERIES = 50;

function requireWebhookAccess(caller: PersonCaller): void {
  requireRole(caller, 'admin');
  if (!caller.plan.integrations) throw errors.integrationsNotInPlan();
}

async function webhookOf(ctx: Context, caller: PersonCaller, webhookId: string) {
  const row = await ctx.db.selectFrom('webhooks').select(['id', 'active']).where('id', '=', webhookId).where('workspace_id', '=', caller.workspaceId).executeTakeFirst();
  if (!row) throw errors.notFound('webhook');
  return row;
}

/**
 * Switches a webhook that was switched off (docs/webhooks.md) on again. The
 * deliveries given up when it was switched off stay failed: only new events go
 * out.
 */
export async function enableWebhookAsPerson(ctx: Context, caller: PersonCaller, webhookId: string, requestId: string) {
  requireWebhookAccess(caller);
  await webhookOf(ctx, caller, webhookId);
  await ctx.db.updateTable('webhooks').set({ active: true, disabled_at: null }).where('id', '=', webhookId).execute();
  await audit(ctx, caller, 'webhook.enable', webhookId, requestId);
  return { id: webhookId, active: true as const };
}

/** A webhook's recent deliveries, newest first, each with its attempts in order. */
export async function recentDeliveriesAsPerson(ctx: Context, caller: PersonCaller, webhookId: string) {
  requireWebhookAccess(caller);
  await webhookOf(ctx, caller, webhookId);
  const deliveries = await ctx.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('domain_events as e', 'e.id', 'd.event_id')
    .select(['d.id', 'd.event_id', 'e.type', 'd.status', 'd.attempts', 'd.next_attempt_at', 'd.created_at', 'd.delivered_at'])
    .where('d.webhook_id', '=', webhookId)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(RECENT_DELIVERIES)
    .execute();
  const ids = deliveries.map((d) => d.id);
  const attempts = ids.length === 0 ? [] : await ctx.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', ids).orderBy('number').execute();
  return deliveries.map((d) => ({
    id: d.id,
    eventId: d.event_id,
    event: d.type,
    status: d.status,
    createdAt: d.created_at.toISOString(),
    deliveredAt: d.delivered_at?.toISOString() ?? null,
    nextAttemptAt: d.status === 'pending' ? d.next_attempt_at.toISOString() : null,
    attempts: attempts
      .filter((a) => a.delivery_id === d.id)
      .map((a) => ({ number: a.number, at: a.at.toISOString(), statusCode: a.status_code, error: a.error, durationMs: a.duration_ms })),
  }));
}
