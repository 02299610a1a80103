-- Visitors (issue 12): the keyless visitor API's conversation tokens, widget events and identity secrets.

-- SHA-256 of the token a visitor's conversation was started with (the token itself is never stored);
-- null for conversations not started through the visitor API, which no visitor can name.
alter table conversations add column if not exists visitor_token_fingerprint text;

-- What the widget reports for the analytics: opened (with what opened it and the page) and lead forms declined.
create table visitor_events (
  id text primary key,
  workspace_id text not null references workspaces(id) on delete cascade,
  agent_id text not null references agents(id) on delete cascade,
  type text not null,                 -- opened, lead_form_declined
  opened_by text,                     -- launcher, greeting, nudge
  page_url text,
  created_at timestamptz not null
);
create index visitor_events_agent on visitor_events (agent_id, created_at);

-- The secret a site signs a signed-in visitor's e-mail with (HMAC-SHA256). Readable by a manage key,
-- so kept as is; made on first read.
create table agent_identity_secrets (
  agent_id text primary key references agents(id) on delete cascade,
  secret text not null,
  created_at timestamptz not null
);
