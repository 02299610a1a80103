/**
 * The outbox of domain events: an area records what happened (a lead, a ticket) in
 * the same transaction as the change itself, and a higher area's job consumes the
 * rows (webhooks turns them into deliveries). The lower area so never imports the
 * higher one, and a crash after the commit loses nothing.
 */
import { sql } from 'kysely';
import type { Db } from './db.ts';
import { newId } from './ids.ts';

export const DOMAIN_EVENT_TYPES = ['lead.created', 'ticket.created'] as const;
export type DomainEventType = (typeof DOMAIN_EVENT_TYPES)[number];

export interface DomainEventRow {
  id: string;
  workspace_id: string;
  agent_id: string;
  type: DomainEventType;
  /** The subject as the API returns it, as JSON text (text keeps the key order). */
  data: string;
  created_at: Date;
  fanned_out_at: Date | null;
}

declare module './db.ts' {
  interface Tables {
    domain_events: DomainEventRow;
  }
}

/** The channel a recorded event is announced on, at its transaction's commit: the webhooks worker listens. */
export const DOMAIN_EVENTS_CHANNEL = 'parley_domain_events';

/** Records the event with the caller's transaction; returns its id (evt_). */
export async function recordDomainEvent(
  db: Db,
  event: { workspaceId: string; agentId: string; type: DomainEventType; data: unknown; at: Date },
): Promise<string> {
  const id = newId('evt');
  await db
    .insertInto('domain_events')
    .values({ id, workspace_id: event.workspaceId, agent_id: event.agentId, type: event.type, data: JSON.stringify(event.data), created_at: event.at, fanned_out_at: null })
    .execute();
  await sql`select pg_notify(${DOMAIN_EVENTS_CHANNEL}, '')`.execute(db);
  return id;
}
