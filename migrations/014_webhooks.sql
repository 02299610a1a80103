-- Webhooks (spec 2.13, 3.4, 4.14, 6): the generic outbox of domain events, the
-- webhooks, and event -> delivery -> attempt.

-- Written by an area (leads, tickets) in the transaction of what happened; the
-- webhooks job turns each into deliveries and marks it fanned out. So a crash
-- between saving a lead and queuing its deliveries loses nothing.
create table domain_events (
  id text primary key,                       -- evt_, the id the delivery body carries
  workspace_id text not null references workspaces(id) on delete cascade,
  agent_id text not null,
  type text not null,                        -- lead.created, ticket.created
  -- The subject exactly as the API returns it, as JSON text: text keeps the key order.
  data text not null,
  created_at timestamptz not null,
  fanned_out_at timestamptz
);
create index domain_events_waiting on domain_events (created_at) where fanned_out_at is null;

create table webhooks (
  id text primary key,
  workspace_id text not null references workspaces(id) on delete cascade,
  agent_id text references agents(id) on delete cascade,   -- null: every agent
  url text not null,
  events jsonb not null,                     -- ["lead.created", "ticket.created"]
  secret text not null,
  active boolean not null default true,
  disabled_at timestamptz,
  created_at timestamptz not null
);
create index webhooks_workspace on webhooks (workspace_id, created_at, id);

-- One per event and webhook. next_attempt_at follows the service's clock (the test
-- clock moves it); claimed_until is the real time a running attempt holds the row.
create table webhook_deliveries (
  id text primary key,                       -- dlv_, the service-delivery header
  webhook_id text not null references webhooks(id) on delete cascade,
  event_id text not null references domain_events(id) on delete cascade,
  status text not null default 'pending',    -- pending, delivered, failed
  attempts integer not null default 0,
  next_attempt_at timestamptz not null,
  claimed_until timestamptz,
  created_at timestamptz not null,
  delivered_at timestamptz
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_webhook on webhook_deliveries (webhook_id) where status = 'pending';
create index webhook_deliveries_done on webhook_deliveries (created_at) where status <> 'pending';
create index webhook_deliveries_event on webhook_deliveries (event_id);

create table webhook_attempts (
  delivery_id text not null references webhook_deliveries(id) on delete cascade,
  number integer not null,
  at timestamptz not null,
  status_code integer,                       -- null when no answer came
  error text,
  duration_ms integer not null,
  primary key (delivery_id, number)
);
