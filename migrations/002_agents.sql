-- Agents: the columns other areas query by hand (id, workspace_id, status,
-- created_at) and every setting an API caller can change in one jsonb
-- document, stored whole with every default filled in (docs/agents.md).
-- Convention for other areas: a table that belongs to an agent references
-- agents(id) on delete cascade, so DELETE /agents/{id} removes everything the
-- agent owns in one statement.
create table agents (
  id text primary key,
  workspace_id text not null references workspaces(id) on delete cascade,
  status text not null default 'active',
  settings jsonb not null default '{}'::jsonb,
  -- Read-only copies for areas that only need these two (written through settings).
  name text generated always as (settings->>'name') stored,
  language text generated always as (coalesce(settings->>'language', 'en')) stored,
  last_trained_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null default now()
);
create index agents_workspace on agents (workspace_id, created_at, id);

-- A key tied to an agent goes with it: a deleted agent's key must stop working.
alter table api_keys
  add constraint api_keys_agent foreign key (agent_id) references agents(id) on delete cascade;

-- Branding images, kept in the database so every api process can serve them.
create table agent_images (
  agent_id text not null references agents(id) on delete cascade,
  kind text not null check (kind in ('logo', 'icon')),
  media_type text not null,
  bytes bytea not null,
  version text not null,
  created_at timestamptz not null,
  primary key (agent_id, kind)
);
