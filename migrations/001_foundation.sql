-- Foundation: workspaces, keys, audit log, credits, settings, outbox.
create extension if not exists vector;

create table workspaces (
  id text primary key,
  name text not null,
  plan text not null,
  status text not null default 'active',
  language text not null default 'en',
  hostname text unique,
  owner_email text,
  purchased_credits integer not null default 0,
  created_at timestamptz not null,
  updated_at timestamptz not null
);

create table api_keys (
  id text primary key,
  workspace_id text not null references workspaces(id) on delete cascade,
  name text not null,
  prefix text not null,
  fingerprint text not null unique,
  scope text not null,
  agent_id text,
  created_at timestamptz not null,
  revoked_at timestamptz
);
create index api_keys_workspace on api_keys (workspace_id) where revoked_at is null;

create table audit_log (
  id text primary key,
  workspace_id text not null references workspaces(id) on delete cascade,
  key_id text,
  action text not null,
  target text,
  request_id text,
  created_at timestamptz not null
);
create index audit_log_workspace on audit_log (workspace_id, created_at desc, id desc);

-- Credits used per workspace per UTC month (YYYY-MM).
create table credit_usage (
  workspace_id text not null references workspaces(id) on delete cascade,
  month text not null,
  used integer not null default 0,
  primary key (workspace_id, month)
);

create table credit_packs (
  id text primary key,
  workspace_id text not null references workspaces(id) on delete cascade,
  credits integer not null,
  created_at timestamptz not null
);

-- Service-wide settings: the admin token's fingerprint, the bootstrap marker.
create table settings (
  name text primary key,
  value text not null
);

create table outbox (
  id text primary key,
  recipient text not null,
  subject text not null,
  body text not null,
  created_at timestamptz not null
);
create index outbox_created on outbox (created_at desc, id desc);
