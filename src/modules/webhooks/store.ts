import { sql, type Selectable } from 'kysely';
import type { Db } from '../../platform/db.ts';
import type { DomainEventRow, DomainEventType } from '../../platform/domain-events.ts';

export interface WebhookRow {
  id: string;
  workspace_id: string;
  agent_id: string | null;
  url: string;
  events: DomainEventType[];
  secret: string;
  active: boolean;
  disabled_at: Date | null;
  created_at: Date;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  status: DeliveryStatus;
  attempts: number;
  /** On the service's clock. */
  next_attempt_at: Date;
  /** Real time until which a running attempt holds the row; a worker killed mid-attempt lets it lapse. */
  claimed_until: Date | null;
  created_at: Date;
  delivered_at: Date | null;
}

export interface AttemptRow {
  delivery_id: string;
  number: number;
  at: Date;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

declare module '../../platform/db.ts' {
  interface Tables {
    webhooks: WebhookRow;
    webhook_deliveries: DeliveryRow;
    webhook_attempts: AttemptRow;
  }
}

export type Webhook = Selectable<WebhookRow>;

/** The webhooks a caller may see: the workspace's, or only its agent's for a tied key. */
function visible(db: Db, workspaceId: string, agentId: string | null) {
  let query = db.selectFrom('webhooks').selectAll().where('workspace_id', '=', workspaceId);
  if (agentId !== null) query = query.where('agent_id', '=', agentId);
  return query;
}

export async function listWebhooks(db: Db, workspaceId: string, agentId: string | null): Promise<Webhook[]> {
  return visible(db, workspaceId, agentId).orderBy('created_at').orderBy('id').execute();
}

export async function findWebhook(db: Db, workspaceId: string, agentId: string | null, id: string): Promise<Webhook | undefined> {
  return visible(db, workspaceId, agentId).where('id', '=', id).executeTakeFirst();
}

/** Holds the workspace's row for the transaction, so two additions at once cannot both take the tenth place. */
export async function lockWorkspace(db: Db, workspaceId: string): Promise<void> {
  await sql`select id from workspaces where id = ${workspaceId} for update`.execute(db);
}

export async function workspaceWebhooks(db: Db, workspaceId: string): Promise<Array<{ id: string; url: string; agent_id: string | null }>> {
  return db.selectFrom('webhooks').select(['id', 'url', 'agent_id']).where('workspace_id', '=', workspaceId).execute();
}

export async function insertWebhook(db: Db, row: WebhookRow): Promise<Webhook> {
  // jsonb goes in as text cast on the server: the two drivers encode an inferred jsonb parameter differently.
  return db
    .insertInto('webhooks')
    .values({ ...row, events: sql<DomainEventType[]>`cast(${JSON.stringify(row.events)}::text as jsonb)` })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Deletes the webhook; its deliveries, waiting or not, go with it (cascade). */
export async function deleteWebhook(db: Db, workspaceId: string, agentId: string | null, id: string): Promise<boolean> {
  let query = db.deleteFrom('webhooks').where('workspace_id', '=', workspaceId).where('id', '=', id);
  if (agentId !== null) query = query.where('agent_id', '=', agentId);
  const deleted = await query.executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

// ---------------------------------------------------------------- deliveries

/**
 * Turns waiting domain events into deliveries, one per active webhook subscribed to
 * the type (for every agent or the event's), and marks them fanned out, all in one
 * transaction; rows another worker holds are skipped. An event no webhook wants is
 * deleted at once. Returns how many deliveries were made.
 */
export async function fanOut(db: Db, now: Date, newDeliveryId: () => string, limit = 500): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const events = await trx
      .selectFrom('domain_events')
      .select(['id', 'workspace_id', 'agent_id', 'type'])
      .where('fanned_out_at', 'is', null)
      .orderBy('created_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (events.length === 0) return 0;
    const workspaces = [...new Set(events.map((e) => e.workspace_id))];
    const hooks = await trx.selectFrom('webhooks').select(['id', 'workspace_id', 'agent_id', 'events']).where('workspace_id', 'in', workspaces).where('active', '=', true).execute();
    const deliveries: DeliveryRow[] = [];
    const unwanted: string[] = [];
    for (const event of events) {
      const wanting = hooks.filter((h) => h.workspace_id === event.workspace_id && (h.agent_id === null || h.agent_id === event.agent_id) && h.events.includes(event.type));
      if (wanting.length === 0) unwanted.push(event.id);
      for (const hook of wanting) {
        deliveries.push({ id: newDeliveryId(), webhook_id: hook.id, event_id: event.id, status: 'pending', attempts: 0, next_attempt_at: now, claimed_until: null, created_at: now, delivered_at: null });
      }
    }
    if (deliveries.length > 0) await trx.insertInto('webhook_deliveries').values(deliveries).execute();
    if (unwanted.length > 0) await trx.deleteFrom('domain_events').where('id', 'in', unwanted).execute();
    const wanted = events.map((e) => e.id).filter((id) => !unwanted.includes(id));
    if (wanted.length > 0) await trx.updateTable('domain_events').set({ fanned_out_at: now }).where('id', 'in', wanted).execute();
    return deliveries.length;
  });
}

/**
 * Claims due deliveries for one attempt each: at most `perWebhook` running per
 * webhook across all workers, so a slow receiver holds up only its own
 * deliveries. The claim lasts until `claimUntil` (real time).
 *
 * The webhooks with waiting deliveries are found by skipping through the index one
 * webhook at a time (a loose index scan), and for each the running ones are counted
 * and its first due ones read in order, all through migrations/018's indexes: the
 * cost follows the webhooks with work, not the number of deliveries waiting.
 */
export async function claimDue(db: Db, now: Date, realNow: Date, claimUntil: Date, perWebhook: number, limit: number): Promise<DeliveryRow[]> {
  const result = await sql<DeliveryRow>`
    with recursive hooks(webhook_id) as (
      (select webhook_id from webhook_deliveries where status = 'pending' order by webhook_id limit 1)
      union all
      select (select d.webhook_id from webhook_deliveries d
              where d.status = 'pending' and d.webhook_id > hooks.webhook_id order by d.webhook_id limit 1)
      from hooks where hooks.webhook_id is not null
    ), picked as (
      select due.id from hooks
      cross join lateral (
        select count(*)::int as n from webhook_deliveries r
        where r.webhook_id = hooks.webhook_id and r.status = 'pending' and r.claimed_until is not null and r.claimed_until > ${realNow}
      ) running
      cross join lateral (
        select d.id from webhook_deliveries d
        where d.webhook_id = hooks.webhook_id and d.status = 'pending' and d.next_attempt_at <= ${now}
          and (d.claimed_until is null or d.claimed_until <= ${realNow})
        order by d.next_attempt_at, d.id
        limit greatest(cast(${perWebhook} as integer) - running.n, 0)
      ) due
      where hooks.webhook_id is not null
      limit ${limit}
    )
    update webhook_deliveries d set claimed_until = ${claimUntil}, attempts = d.attempts + 1
    from picked
    where d.id = picked.id and d.status = 'pending' and (d.claimed_until is null or d.claimed_until <= ${realNow})
    returning d.*`.execute(db);
  return result.rows;
}

export interface Outgoing {
  delivery: DeliveryRow;
  webhook: Pick<Webhook, 'id' | 'workspace_id' | 'url' | 'secret' | 'active'>;
  event: Pick<DomainEventRow, 'id' | 'type' | 'agent_id' | 'data' | 'created_at'>;
}

/** What an attempt sends; undefined when the webhook was deleted meanwhile. */
export async function outgoing(db: Db, delivery: DeliveryRow): Promise<Outgoing | undefined> {
  const row = await db
    .selectFrom('webhooks as w')
    .innerJoin('domain_events as e', (join) => join.on('e.id', '=', delivery.event_id))
    .select(['w.id', 'w.workspace_id', 'w.url', 'w.secret', 'w.active', 'e.id as event_id', 'e.type', 'e.agent_id', 'e.data', 'e.created_at'])
    .where('w.id', '=', delivery.webhook_id)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    delivery,
    webhook: { id: row.id, workspace_id: row.workspace_id, url: row.url, secret: row.secret, active: row.active },
    event: { id: row.event_id, type: row.type, agent_id: row.agent_id, data: row.data, created_at: row.created_at },
  };
}

export async function recordAttempt(db: Db, attempt: AttemptRow): Promise<void> {
  await db.insertInto('webhook_attempts').values(attempt).onConflict((oc) => oc.doNothing()).execute();
}

export async function markDelivered(db: Db, deliveryId: string, at: Date): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ status: 'delivered', delivered_at: at, claimed_until: null }).where('id', '=', deliveryId).execute();
}

export async function scheduleRetry(db: Db, deliveryId: string, at: Date): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ next_attempt_at: at, claimed_until: null }).where('id', '=', deliveryId).where('status', '=', 'pending').execute();
}

/**
 * The webhook switched off and every delivery of it still waiting given up, in the
 * caller's transaction. False when it was already off (another attempt got there first).
 */
export async function switchOff(db: Db, webhookId: string, at: Date): Promise<boolean> {
  const switched = await db.updateTable('webhooks').set({ active: false, disabled_at: at }).where('id', '=', webhookId).where('active', '=', true).executeTakeFirst();
  await db.updateTable('webhook_deliveries').set({ status: 'failed', claimed_until: null }).where('webhook_id', '=', webhookId).where('status', '=', 'pending').execute();
  return Number(switched.numUpdatedRows) > 0;
}

export async function deleteWebhookById(db: Db, webhookId: string): Promise<void> {
  await db.deleteFrom('webhooks').where('id', '=', webhookId).execute();
}

/** Delivery records delivered or given up that were made before `before`, then the events nothing refers to any more. */
export async function deleteOldDeliveries(db: Db, before: Date): Promise<void> {
  await db.deleteFrom('webhook_deliveries').where('status', '<>', 'pending').where('created_at', '<=', before).execute();
  await sql`delete from domain_events e where e.fanned_out_at is not null
    and not exists (select 1 from webhook_deliveries d where d.event_id = e.id)`.execute(db);
}
