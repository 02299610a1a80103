-- Agents. (Extended by the agents area.)
create table agents (
  id text primary key,
  workspace_id text not null references workspaces(id) on delete cascade,
  status text not null default 'active',
  created_at timestamptz not null
);
create index agents_workspace on agents (workspace_id, created_at, id);
