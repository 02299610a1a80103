-- When a key was last used (docs/people.md, "API keys"): written at most once a minute per key.
alter table api_keys add column last_used_at timestamptz;

-- Who is e-mailed each new lead and each new ticket of an agent (docs/people.md,
-- "Notifications"): lists of person ids; null (or no row) is the default, the owner.
create table agent_notifications (
  agent_id text primary key references agents (id) on delete cascade,
  workspace_id text not null references workspaces (id) on delete cascade,
  leads jsonb,
  tickets jsonb,
  updated_at timestamptz not null
);

